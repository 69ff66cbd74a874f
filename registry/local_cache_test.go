package registry

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteLocalCache(t *testing.T) {
	r := &Registry{root: t.TempDir()}
	for _, data := range []string{"first", "second, longer"} {
		if err := r.WriteLocalCache("sessions/a.json", []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := r.ReadLocal("sessions/a.json")
		if err != nil || string(got) != data {
			t.Fatalf("ReadLocal = %q, %v; want %q", got, err, data)
		}
	}
	ents, err := os.ReadDir(filepath.Join(r.LocalDir(), "sessions"))
	if err != nil || len(ents) != 1 {
		t.Fatalf("temp files left behind: %v %v", ents, err)
	}
	if err := r.WriteLocalCache("../escape", []byte("x")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("escaping name: err = %v, want ErrInvalid", err)
	}
}
