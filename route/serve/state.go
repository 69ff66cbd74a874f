package serve

import (
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route/index"
)

// How a registry's one `megagit serve` is started, found and told apart
// from a failed start; the prompt hook (either binary) starts it, the
// server and doctor read the same files, all in .megagit/local/.
const (
	// Lock is held (flock) by the registry's server for its whole
	// life: a second server, or a hook about to start one, finds it taken.
	// The kernel drops it when the server dies, so a killed server never
	// blocks a new one.
	Lock = "serve.lock"
	// Log is where a server the hook started writes what it says
	// (bounded: LogMaxBytes).
	Log = "serve.log"
	// StateFile is the last server's state (State), written
	// only by the holder of Lock.
	StateFile = "serve.json"
	// LogMaxBytes bounds serve.log: past it, the older half goes.
	LogMaxBytes = 1 << 20
)

// The states of State.
const (
	Starting = "starting" // the hook started it; it is loading
	Serving  = "serving"  // it answers on its socket
	Failed   = "failed"   // it could not start (Error says why)
	Stopped  = "stopped"  // it stopped (idle, a signal)
)

// State is what the registry's last server said of itself (or the
// hook, of the server it started): enough for the hook to tell a server
// that stopped (start another) from one that could not start (wait until
// the model or the config changes, or RetryAfter), and for doctor.
type State struct {
	State string `json:"state"`
	PID   int    `json:"pid"`
	Time  string `json:"time"` // RFC 3339, when it entered the state
	// Stamp is Stamp of the files that decide whether the server
	// can start, when the hook started it.
	Stamp string `json:"stamp,omitempty"`
	Error string `json:"error,omitempty"`
	// Model and Idle say what a serving server routes with and when it
	// stops by itself ("0s": never); Auto that the hook started it.
	Model string `json:"model,omitempty"`
	Idle  string `json:"idle,omitempty"`
	Auto  bool   `json:"auto,omitempty"`
}

// RetryAfter is how long the hook waits before starting a server
// again after one could not start, when nothing it can see changed: a
// model that does not load fails the same way every time, and each try
// costs a process loading it (hundreds of milliseconds of a core, hundreds
// of megabytes for a real model). Ten minutes keeps that below a
// thousandth of a core, yet a fix the stamps cannot see (memory freed, a
// library installed elsewhere) is picked up within a working session.
const RetryAfter = 10 * time.Minute

// ReadState reads the last server's state; ok is false when there
// is none (or it does not parse: treated as none).
func ReadState(dir local.Dir) (State, bool) {
	data, err := dir.Read(StateFile)
	if err != nil {
		return State{}, false
	}
	var st State
	if json.Unmarshal(data, &st) != nil || st.State == "" {
		return State{}, false
	}
	return st, true
}

// WriteState replaces the server's state; only the holder of
// Lock writes it. The file is the user's alone.
func WriteState(dir local.Dir, st State) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	p, err := dir.Resolve(StateFile)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir.Path(), 0o700); err != nil {
		return err
	}
	return local.WriteAtomic(p, 0o600, false, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// Stamp stamps the files that decide whether a server can start
// (the model's files, the ONNX Runtime library, the config files, the
// committed vectors): a failed start is tried again once it changes.
func Stamp(files []string) string {
	var b strings.Builder
	for _, st := range index.StatAll(files) {
		b.WriteString(st.String() + " ")
	}
	return b.String()
}
