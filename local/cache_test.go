package local

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/megagit/megagit/errkind"
)

func TestWriteCache(t *testing.T) {
	d := Open(t.TempDir(), 0)
	for _, data := range []string{"first", "second, longer"} {
		if err := d.WriteCache("sessions/a.json", []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := d.Read("sessions/a.json")
		if err != nil || string(got) != data {
			t.Fatalf("Read = %q, %v; want %q", got, err, data)
		}
	}
	ents, err := os.ReadDir(filepath.Join(d.Path(), "sessions"))
	if err != nil || len(ents) != 1 {
		t.Fatalf("temp files left behind: %v %v", ents, err)
	}
	if err := d.WriteCache("../escape", []byte("x")); !errors.Is(err, errkind.ErrInvalid) {
		t.Fatalf("escaping name: err = %v, want errkind.ErrInvalid", err)
	}
}

func TestPrune(t *testing.T) {
	d := Open(t.TempDir(), 0)
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	if n, err := d.Prune("sessions", 30*24*time.Hour, now); n != 0 || err != nil {
		t.Fatalf("missing folder: %d, %v", n, err)
	}
	dir := filepath.Join(d.Path(), "sessions")
	age := map[string]time.Duration{"old.json": 31 * 24 * time.Hour, "recent.json": 29 * 24 * time.Hour, "new.json": 0}
	for name, ago := range age {
		if err := d.WriteCache("sessions/"+name, []byte("{}")); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(dir, name), now.Add(-ago), now.Add(-ago)); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := d.Prune("sessions", 30*24*time.Hour, now); n != 1 || err != nil {
		t.Fatalf("first prune removed %d, %v; want 1", n, err)
	}
	left := func() (names []string) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	if got := left(); len(got) != 3 || got[0] != pruneMarker || got[1] != "new.json" || got[2] != "recent.json" {
		t.Fatalf("left %v", got)
	}
	// Within a day of the last scan, nothing is scanned; after it, the
	// session that has since aged is removed.
	if n, _ := d.Prune("sessions", 30*24*time.Hour, now.Add(23*time.Hour)); n != 0 {
		t.Fatalf("second prune within a day removed %d", n)
	}
	if n, _ := d.Prune("sessions", 30*24*time.Hour, now.Add(2*24*time.Hour)); n != 1 {
		t.Fatalf("prune two days later removed %d, want 1 (recent.json)", n)
	}
	if _, err := d.Prune("../x", time.Hour, now); !errors.Is(err, errkind.ErrInvalid) {
		t.Fatalf("escaping name: err = %v, want errkind.ErrInvalid", err)
	}
}
