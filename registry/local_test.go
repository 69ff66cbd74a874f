package registry

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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
