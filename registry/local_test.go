package registry

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
)

// Local is the registry's .megagit/local/ with the lock timeout from
// Options: same folder, same sentinel errors.
func TestLocal(t *testing.T) {
	r := &Registry{root: t.TempDir(), opts: Options{LockTimeout: 30 * time.Millisecond}}
	if want := filepath.Join(r.Root(), ".megagit", "local"); r.LocalDir() != want || r.Local().Path() != want {
		t.Fatalf("LocalDir = %q, Local().Path() = %q; want %q", r.LocalDir(), r.Local().Path(), want)
	}
	if err := r.Local().WriteCache("sessions/a.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(r.LocalDir(), "sessions", "a.json")); err != nil || string(data) != "{}" {
		t.Fatalf("cache file = %q, %v", data, err)
	}
	if _, err := r.Local().Prune("../x", time.Hour, time.Now()); !errors.Is(err, errkind.ErrInvalid) {
		t.Errorf("Prune(../x) = %v, want errkind.ErrInvalid", err)
	}

	l, err := r.Local().Acquire(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if info := r.Local().LockState(); !info.Held || info.PID != os.Getpid() {
		t.Errorf("LockState = %+v", info)
	}
	// Syncs take their own lock file, not the writers' lock.
	s, err := r.Local().AcquireFile("sync.lock", 0)
	if err != nil {
		t.Fatalf("sync lock while the writers' lock is held: %v", err)
	}
	s.Release()
	// A trimming append waits Options.LockTimeout for the held lock.
	err = r.Local().Append("log", bytes.Repeat([]byte("x"), 20), 10)
	if !errors.Is(err, local.ErrLocked) || !strings.HasSuffix(err.Error(), "waited 30ms") {
		t.Errorf("Append under a held lock = %v, want local.ErrLocked after 30ms", err)
	}
}
