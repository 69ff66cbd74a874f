package hook

import (
	"encoding/json"
	"strings"
)

// Session is the per-session memory the prompt and stop hooks share, kept
// in .megagit/local/sessions/<id>.json (local, gitignored). It holds raw
// prompt text: the stop hook needs the prompt that triggered an injection
// as the verdict's context, and agents without a readable transcript need
// the prompts for the implicit outcomes' correction and success signals.
type Session struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
	// Prompts are the prompts the prompt hook saw, indexed by turn (each
	// capped). The file keeps only the last MaxSessionPrompts of them:
	// the turns before FirstTurn load as empty strings, so a turn index
	// (an Injection's Turn, AddPrompt's result) keeps meaning the same
	// prompt of the session.
	Prompts []string `json:"prompts"`
	// FirstTurn is the turn of the oldest prompt the file holds; 0 in
	// files written before prompts were dropped.
	FirstTurn  int         `json:"first_turn,omitempty"`
	Injections []Injection `json:"injections"`
	// Processed holds the keys of tags already applied or rejected, so a
	// second stop run on the same transcript changes nothing.
	Processed []string `json:"processed,omitempty"`
	Updated   string   `json:"updated"`
	// Stopped is set once a stop hook has read this session.
	Stopped bool `json:"stopped,omitempty"`
	// Armed is the source of the last SessionStart event (startup,
	// resume, clear, compact) whose hook gave the model the report
	// instruction; "" when none did since the context was last compacted.
	// While it is set, prompt injections leave the instruction out.
	Armed string `json:"armed,omitempty"`
	// Instructed records that a prompt injection carried the report
	// instruction because no SessionStart hook had (see NeedsInstruction).
	Instructed bool `json:"instructed,omitempty"`
	// ContextTurn is the first turn whose injections are still in the
	// model's context: a compaction or a clear drops the ones before, so
	// their skills are injected in full again, not named as "already
	// loaded".
	ContextTurn int `json:"context_turn,omitempty"`
}

// NeedsInstruction reports whether the next prompt injection must carry
// the report instruction: no SessionStart hook gave it to the model (an
// agent without the event, or hooks installed by an older megagit) and no
// injection has carried it since the context was last compacted. So the
// instruction reaches the model once either way, and again after a
// compaction.
func (s *Session) NeedsInstruction() bool { return s.Armed == "" && !s.Instructed }

// Arm records that a SessionStart hook gave the model the instruction;
// after a compaction or a clear, the injections before now are no longer
// in the model's context.
func (s *Session) Arm(source string) {
	if source == "" {
		source = SourceStartup
	}
	s.Armed = source
	if source == SourceCompact || source == SourceClear {
		s.ContextTurn = len(s.Prompts)
	}
}

// Compacted records a compaction the agent reported without a way to add
// context (Gemini CLI's PreCompress, Codex's PostCompact): the next
// injection carries the instruction again, and skills injected before are
// injected in full again.
func (s *Session) Compacted() {
	s.Armed, s.Instructed = "", false
	s.ContextTurn = len(s.Prompts)
}

// InContext returns the injection of skill when its text is still in the
// model's context (injected at or after ContextTurn), or nil.
func (s *Session) InContext(skill string) *Injection {
	if inj := s.Injected(skill); inj != nil && max(inj.Turn, inj.Shown) >= s.ContextTurn {
		return inj
	}
	return nil
}

// Injection is one skill injected in full during the session.
type Injection struct {
	Skill string `json:"skill"`
	Path  string `json:"path"`
	// Turn is the index in Prompts of the prompt that triggered it.
	Turn int `json:"turn"`
	// Shown is the last turn the skill was injected in full again, after
	// a compaction dropped it from the context; 0 when it was not.
	Shown  int    `json:"shown,omitempty"`
	Prompt string `json:"prompt"`
	At     string `json:"at"`
	// Words make a shell command relevant to the skill (RelevantWords).
	Words []string `json:"words,omitempty"`
	// Explicit and Implicit record that a verdict of that kind is applied.
	Explicit bool `json:"explicit,omitempty"`
	Implicit bool `json:"implicit,omitempty"`
}

// MaxPromptMemory caps each remembered prompt.
const MaxPromptMemory = 4000

// MaxSessionPrompts is how many of the latest prompts a session file
// keeps; the file is read and written on every prompt, so it must not
// grow with the session. The prompts serve the stop hook's implicit
// outcomes, which look at most stop.SuccessWindow (5) prompts past an
// injection, and the stop hook runs after every turn, so an outcome is
// settled long before its prompts are dropped; 16 leaves room for stop
// runs that failed or never came. (The prompt that triggered an injection,
// the verdict's context, is kept in the Injection itself.)
const MaxSessionPrompts = 16

// maxFirstTurn bounds the empty prompts a session file can make
// ParseSession allocate: a larger FirstTurn is junk.
const maxFirstTurn = 1 << 16

// ParseSession decodes a session file; junk yields an empty session.
// Prompts dropped from the file come back as empty strings before
// FirstTurn.
func ParseSession(id string, data []byte) *Session {
	s := &Session{}
	if json.Unmarshal(data, s) != nil || s.ID != id || s.FirstTurn < 0 || s.FirstTurn > maxFirstTurn {
		s = &Session{}
	}
	s.ID = id
	if s.FirstTurn > 0 {
		all := make([]string, s.FirstTurn+len(s.Prompts))
		copy(all[s.FirstTurn:], s.Prompts)
		s.Prompts = all
	}
	return s
}

// Marshal encodes the session for its file, with only its last
// MaxSessionPrompts prompts; s itself keeps them all.
func (s *Session) Marshal() ([]byte, error) {
	c := *s
	c.FirstTurn = max(s.FirstTurn, len(s.Prompts)-MaxSessionPrompts, 0)
	c.Prompts = s.Prompts[min(c.FirstTurn, len(s.Prompts)):]
	return json.MarshalIndent(&c, "", "  ")
}

// Injected returns the injection of skill, or nil.
func (s *Session) Injected(skill string) *Injection {
	for i := range s.Injections {
		if s.Injections[i].Skill == skill {
			return &s.Injections[i]
		}
	}
	return nil
}

// AddPrompt remembers a prompt and returns its turn index, which is also
// its index in Prompts.
func (s *Session) AddPrompt(p string) int {
	s.Prompts = append(s.Prompts, Clip(p, MaxPromptMemory))
	return len(s.Prompts) - 1
}

// Seen reports whether a tag key was processed; Mark records it.
func (s *Session) Seen(key string) bool {
	for _, k := range s.Processed {
		if k == key {
			return true
		}
	}
	return false
}

// Mark records a processed tag key.
func (s *Session) Mark(key string) {
	if !s.Seen(key) {
		s.Processed = append(s.Processed, key)
	}
}

// Clip shortens s to at most n bytes on a rune boundary, on one line: a
// remembered prompt is Clip(prompt, MaxPromptMemory), and the stop hook
// finds an injection's turn by clipping transcript prompts the same way.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
