package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/megagit/megagit/local"
)

// The agents whose sessions are read, by the names megagit gives them
// (hook.AgentClaude and the others: the same strings, which hook/stop's
// tests check; package history imports no hook package).
const (
	AgentClaude = "claude"
	AgentCodex  = "codex"
	AgentGemini = "gemini"
)

// How a use shows in a session.
const (
	HowSkillTool = "skill-tool" // Claude Code's Skill tool
	HowRead      = "read"       // the model read the skill's SKILL.md (a read tool or a shell command)
	HowSlash     = "slash"      // the user's /name args (Claude Code)
	HowActivate  = "activate"   // Gemini CLI's activate_skill tool
	HowMention   = "mention"    // the user's $name, which Codex expanded into the skill
)

// Bounds of a read: a session is read whole when it is at most MaxFile
// bytes, else its first MaxFile bytes (the start holds what a session says
// of itself: Codex's session_meta, Gemini CLI's header); a line longer than
// MaxLine (a tool result holding an image or a huge file) is skipped as it
// is read, never held; a prompt keeps its first MaxPrompt bytes.
const (
	MaxFile   = local.MaxTranscript
	MaxLine   = 8 << 20
	MaxPrompt = 2000
)

// Session is one session file of an agent.
type Session struct {
	Agent   string // "claude", "codex", "gemini"
	Path    string // absolute
	ModTime time.Time
	Size    int64
}

// Use is one user prompt followed, in the same turn, by a use of a skill.
type Use struct {
	Agent, Session string    // the session id (from the file, else its name)
	Path           string    // the session file
	Time           time.Time // the prompt's timestamp when the file has one, else the file's ModTime
	Cwd            string    // the session's working folder when known
	Prompt         string    // the user's prompt, as typed (slash command: its arguments)
	Skill          string    // the skill's name as the agent names it (Claude plugin skills "plugin:name")
	SkillPath      string    // the SKILL.md read, when the use was a read of it ("" otherwise)
	How            string    // HowSkillTool, HowRead, HowSlash, HowActivate or HowMention
	Spoiled        bool      // the same turn then had a correction by the user or a failing command: counts for nothing
}

// Options says whose sessions Sessions lists.
type Options struct {
	Home   string              // the home folder whose agents' folders are read ("": the user's)
	Env    func(string) string // environment lookup (nil: os.Getenv): CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME
	Agents []string            // nil: all three
	Since  time.Time           // sessions whose file changed before are skipped
}

// Result is what Scan read of one session file: its uses and what was
// skipped on the way.
type Result struct {
	Uses []Use
	// Lines counts the lines read; Junk those that were not a JSON object
	// of the agent's format; Long those over MaxLine, skipped unread.
	Lines, Junk, Long int
	// Unread counts the bytes past MaxFile, not read.
	Unread int64
}

// ErrNotSession is what Read's error for a path that is not a session file
// where its agent keeps them is (a symlink, a FIFO, another file).
var ErrNotSession = errors.New("not a session file")

// Read reads one session file and returns its uses, in order.
func Read(s Session) ([]Use, error) {
	r, err := Scan(s)
	return r.Uses, err
}

// Scan is Read with the count of what it skipped.
func Scan(s Session) (Result, error) {
	var res Result
	f, size, err := openSession(s)
	if err != nil {
		return res, err
	}
	defer f.Close()
	if size > MaxFile {
		res.Unread = size - MaxFile
	}
	t := newTurns(s)
	switch s.Agent {
	case AgentClaude:
		err = readClaude(f, t, &res)
	case AgentCodex:
		err = readCodex(f, t, &res)
	case AgentGemini:
		if strings.HasSuffix(s.Path, ".json") {
			err = readGeminiJSON(f, t, &res)
		} else {
			err = readGemini(f, t, &res)
		}
	}
	res.Uses = t.finish()
	if err != nil {
		return res, fmt.Errorf("read %s session %s: %w", s.Agent, s.Path, err)
	}
	return res, nil
}

// clipPrompt trims a prompt and keeps its first MaxPrompt bytes, cut on a
// rune boundary.
func clipPrompt(p string) string {
	p = strings.TrimSpace(p)
	if len(p) <= MaxPrompt {
		return p
	}
	n := MaxPrompt
	for n > 0 && !utf8.RuneStart(p[n]) {
		n--
	}
	return p[:n]
}

// parseTime reads an RFC 3339 timestamp; the zero time when there is none.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// stem is a session file's name without its extension: the id a file
// that names none is known by.
func stem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// env is o.Env, or the process's environment.
func (o Options) env(key string) string {
	if o.Env == nil {
		return os.Getenv(key)
	}
	return o.Env(key)
}
