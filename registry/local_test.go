package registry

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLocalFiles(t *testing.T) {
	r := newTestRegistry(t)
	if err := r.WriteLocal("sessions/a.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if data, err := r.ReadLocal("sessions/a.json"); err != nil || string(data) != "{}" {
		t.Fatalf("ReadLocal = %q, %v", data, err)
	}
	if _, err := r.ReadLocal("missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	for _, bad := range []string{"../config.yaml", "/etc/passwd", "", "a/../../x"} {
		if err := r.WriteLocal(bad, nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("WriteLocal(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	// AppendLocal keeps the newest whole lines once the file passes the bound.
	for i := 0; i < 200; i++ {
		if err := r.AppendLocal("log", []byte(fmt.Sprintf("line %03d", i)), 1000); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := r.ReadLocal("log")
	if len(data) > 1000 || !bytes.HasSuffix(data, []byte("line 199\n")) || !bytes.HasPrefix(data, []byte("line ")) {
		t.Errorf("bounded log (%d bytes) ends %q", len(data), data[max(0, len(data)-20):])
	}
}

// The Registry methods are thin delegations to local.Dir: same folder, same
// sentinel errors, the lock timeout from Options.
func TestLocalDelegates(t *testing.T) {
	r := &Registry{root: t.TempDir(), opts: Options{LockTimeout: 30 * time.Millisecond}}
	if want := filepath.Join(r.Root(), ".megagit", "local"); r.LocalDir() != want || r.Local().Path() != want {
		t.Fatalf("LocalDir = %q, Local().Path() = %q; want %q", r.LocalDir(), r.Local().Path(), want)
	}
	if err := r.WriteLocalCache("sessions/a.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(r.LocalDir(), "sessions", "a.json")); err != nil || string(data) != "{}" {
		t.Fatalf("cache file = %q, %v", data, err)
	}
	if _, err := r.PruneLocal("../x", time.Hour, time.Now()); !errors.Is(err, ErrInvalid) {
		t.Errorf("PruneLocal(../x) = %v, want registry.ErrInvalid", err)
	}

	l, err := r.Acquire(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if info := r.LockState(); !info.Held || info.PID != os.Getpid() {
		t.Errorf("LockState = %+v", info)
	}
	// Syncs take their own lock file, not the writers' lock.
	s, err := r.acquireSync(0)
	if err != nil {
		t.Fatalf("acquireSync while the writers' lock is held: %v", err)
	}
	s.Release()
	// A trimming append waits Options.LockTimeout for the held lock.
	err = r.AppendLocal("log", bytes.Repeat([]byte("x"), 20), 10)
	if !errors.Is(err, ErrLocked) || !strings.HasSuffix(err.Error(), "waited 30ms") {
		t.Errorf("AppendLocal under a held lock = %v, want registry.ErrLocked after 30ms", err)
	}
}
