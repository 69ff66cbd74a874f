package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route/serve"
	"github.com/rogpeppe/go-internal/testscript"
)

// The harness commands of the scripts about the `megagit serve` the
// prompt hook starts (onnx_autoserve.txtar).

// cmdWaitServe is `waitserve STATE`: wait (up to a minute) until the
// registry here says its server is in STATE (serving, failed, stopped).
func cmdWaitServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitserve serving|failed|stopped")
	}
	d := local.Open(ts.MkAbs("."), 0)
	var st serve.State
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if st, _ = serve.ReadState(d); st.State == args[0] {
			return
		}
	}
	log, _ := d.Read(serve.Log)
	ts.Fatalf("the server is %q after a minute, not %q; serve.log:\n%s", st.State, args[0], log)
}

// cmdKillServe is `killserve`: SIGKILL the registry's server here (the
// holder of its serve lock) and wait for the kernel to free the lock.
func cmdKillServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: killserve")
	}
	d := local.Open(ts.MkAbs("."), 0)
	info := d.FileLockState(serve.Lock)
	if !info.Held || info.PID <= 0 {
		ts.Fatalf("no server holds %s (%+v)", serve.Lock, info)
	}
	ts.Check(syscall.Kill(info.PID, syscall.SIGKILL))
	for end := time.Now().Add(10 * time.Second); d.FileLockState(serve.Lock).Held; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			ts.Fatalf("pid %d still holds %s 10s after SIGKILL", info.PID, serve.Lock)
		}
	}
}

// stopServers kills every server a script left running in a registry
// under work (at most three folders down): the idle timeout would stop
// them too, but no test leaves a process behind.
func stopServers(work string) {
	_ = filepath.WalkDir(work, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(work, p)
		if de.IsDir() && strings.Count(rel, string(filepath.Separator)) >= 3 {
			return filepath.SkipDir
		}
		if !de.IsDir() || de.Name() != local.MetaDir {
			return nil
		}
		d := local.Open(filepath.Dir(p), 0)
		// The holder is read again each time: a server the hook has just
		// started may not be named in the lock file yet.
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			info := d.FileLockState(serve.Lock)
			if !info.Held {
				break
			}
			if info.PID > 0 && info.PID != os.Getpid() {
				_ = syscall.Kill(info.PID, syscall.SIGKILL)
			}
		}
		return filepath.SkipDir
	})
}
