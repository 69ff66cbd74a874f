package inject

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/local"
)

// A hook that starts past its deadline (megagit-hook handed it over late)
// while the registry is slow to open still writes why it printed nothing
// to the registry's hook.log, not only to stderr.
func TestGaveUpHookLogsInTheRegistry(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, local.MetaDir), 0o755); err != nil {
		t.Fatal(err)
	}
	event, _ := json.Marshal(map[string]string{"prompt": "my docker image is too large", "cwd": dir, "session_id": "s1"})
	release := make(chan struct{})
	defer close(release)
	var out, errOut bytes.Buffer
	_, err := Run(Options{Agent: "claude", Start: time.Now().Add(-700 * time.Millisecond), Now: time.Now,
		In: bytes.NewReader(event), Out: &out, ErrOut: &errOut,
		Open: func(string) (*Env, error) {
			<-release // a registry that opens after the hook has given up
			return nil, errors.New("opened too late")
		}})
	if err != nil || out.Len() != 0 {
		t.Fatalf("Run: %v, stdout %q", err, out.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(local.MachineDir), hook.LogFile))
	if err != nil || !strings.Contains(string(data), "claude prompt: deadline exceeded; printed nothing") {
		t.Fatalf("hook.log: %v %q (stderr %q)", err, data, errOut.String())
	}
}
