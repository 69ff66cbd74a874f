package hook

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/safetext"
	"golang.org/x/term"
)

// Files the hooks keep in .megagit/local/, and their bounds (the decision
// log's are in package decisionlog).
const (
	LogFile     = "hook.log"
	SessionDir  = "sessions"
	LogMaxBytes = 1 << 20
)

// RegistryDir picks where a hook looks for the registry: -C when given (an
// install can pin a registry), else the agent's cwd, else the process's.
//
// A relative dir given with an event's cwd is the registry's path from the
// top of the project's work tree (what a project's shared settings name,
// `-C tools/skills`): it is resolved there, not against wherever the agent
// was started.
func RegistryDir(dir, cwd string) string {
	switch {
	case dir != "" && cwd != "" && !filepath.IsAbs(dir):
		if top := projectTop(cwd); top != "" {
			return filepath.Join(top, dir)
		}
		return filepath.Join(cwd, dir)
	case dir != "":
		return dir
	case cwd != "":
		return cwd
	}
	return "."
}

// projectTop is the nearest folder at or above dir holding a .git entry
// (a folder, or the file of a linked work tree); "" when there is none.
func projectTop(dir string) string {
	dir = filepath.Clean(dir)
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// ReadInput reads stdin up to the protocol's cap; a terminal is not read
// (a person running `hook stop --transcript F` by hand).
func ReadInput(in io.Reader) ([]byte, error) {
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(in, MaxInput+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxInput {
		return nil, fmt.Errorf("%w: stdin larger than %d bytes", ErrBadInput, MaxInput)
	}
	return data, nil
}

// Log records why a hook did nothing: in hook.log when a registry was
// found, and on stderr (agents show a hook's stderr only in debug views).
// A user-scope hook stepping aside for the project's own (ErrProjectHook)
// is not logged.
func Log(errOut io.Writer, dir *local.Dir, now time.Time, agent, verb string, err error) {
	if errors.Is(err, ErrProjectHook) || errors.Is(err, ErrOtherAgent) {
		return // not a failure: the project's own hook, or the agent's own, answers
	}
	// One line, and nothing a terminal would act on when someone reads
	// the log (an error can quote a transcript's text).
	msg := safetext.Escape(strings.Join(strings.Fields(err.Error()), " "))
	line := fmt.Sprintf("%s %s %s: %s", now.UTC().Format(time.RFC3339), agent, verb, msg)
	fmt.Fprintf(errOut, "megagit: hook %s: %s\n", verb, msg)
	if dir != nil {
		if lerr := dir.Append(LogFile, []byte(line), LogMaxBytes); lerr != nil {
			fmt.Fprintf(errOut, "megagit: hook log: %v\n", lerr)
		}
	}
}

// SessionFile is a session's memory file name under .megagit/local/.
func SessionFile(id string) string { return SessionDir + "/" + SanitizeID(id) + ".json" }

// LoadSession reads a session's memory; missing or junk is a fresh one.
func LoadSession(dir local.Dir, id string) (*Session, error) {
	data, err := dir.Read(SessionFile(id))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return ParseSession(id, data), nil
}

// SessionStopped reports whether a stop hook has read the session (its
// memory's Stopped), for learn's labels of logged decisions; a memory that
// cannot be read counts as not read.
func SessionStopped(dir local.Dir, id string) bool {
	sess, err := LoadSession(dir, id)
	return err == nil && sess.Stopped
}
