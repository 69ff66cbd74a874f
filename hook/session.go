package hook

import (
	"encoding/json"
	"strings"
)

// Session is the per-session memory the prompt and stop hooks share, kept
// in .megagit/local/sessions/<id>.json (local, gitignored). It holds raw
// prompt text: the stop hook needs the prompt that triggered an injection
// as the verdict's context, and agents without a readable transcript need
// the prompts for seed 001's correction and success signals.
type Session struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
	// Prompts are the prompts the prompt hook saw, in order (each capped).
	Prompts    []string    `json:"prompts"`
	Injections []Injection `json:"injections"`
	// Processed holds the keys of tags already applied or rejected, so a
	// second stop run on the same transcript changes nothing.
	Processed []string `json:"processed,omitempty"`
	Updated   string   `json:"updated"`
	// Stopped is set once a stop hook has read this session.
	Stopped bool `json:"stopped,omitempty"`
}

// Injection is one skill injected in full during the session.
type Injection struct {
	Skill string `json:"skill"`
	Path  string `json:"path"`
	// Turn is the index in Prompts of the prompt that triggered it.
	Turn   int    `json:"turn"`
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

// ParseSession decodes a session file; junk yields an empty session.
func ParseSession(id string, data []byte) *Session {
	s := &Session{}
	if json.Unmarshal(data, s) != nil || s.ID != id {
		s = &Session{}
	}
	s.ID = id
	return s
}

// Marshal encodes the session for its file.
func (s *Session) Marshal() ([]byte, error) { return json.MarshalIndent(s, "", "  ") }

// Injected returns the injection of skill, or nil.
func (s *Session) Injected(skill string) *Injection {
	for i := range s.Injections {
		if s.Injections[i].Skill == skill {
			return &s.Injections[i]
		}
	}
	return nil
}

// AddPrompt remembers a prompt and returns its turn index.
func (s *Session) AddPrompt(p string) int {
	s.Prompts = append(s.Prompts, clip(p, MaxPromptMemory))
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

// Turns rebuilds turns from remembered prompts, for agents whose transcript
// megagit does not read; final is the turn's last answer, if known.
func (s *Session) Turns(final, finalKey string) []Turn {
	turns := make([]Turn, len(s.Prompts))
	for i, p := range s.Prompts {
		turns[i].Prompt = p
	}
	if final != "" && len(turns) > 0 {
		last := &turns[len(turns)-1]
		last.Texts = append(last.Texts, Text{Key: finalKey, Text: final})
	}
	return turns
}

// LocateTurn finds the transcript turn of an injection: the turn whose
// prompt equals the remembered one, nearest to the remembered index; the
// remembered index itself when no prompt matches.
func LocateTurn(turns []Turn, inj Injection) int {
	want := strings.Join(strings.Fields(inj.Prompt), " ")
	best, bestDist := -1, 0
	for i, t := range turns {
		if clip(t.Prompt, MaxPromptMemory) != want {
			continue
		}
		d := i - inj.Turn
		if d < 0 {
			d = -d
		}
		if best < 0 || d < bestDist {
			best, bestDist = i, d
		}
	}
	if best >= 0 {
		return best
	}
	if inj.Turn < len(turns) {
		return inj.Turn
	}
	return -1
}
