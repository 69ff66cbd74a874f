// Package decisionlog is the local decision log,
// .megagit/local/decisions.jsonl: one JSON line per prompt the prompt hook
// ranked, saying what it decided and why. The prompt hook writes it;
// `megagit decisions`, `megagit stats` and `megagit tune` read it. It is a
// package of its own, importing only ranker and local, so that both the
// hooks and learn (which turns the log into samples) can import it
// without learn importing hook.
package decisionlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/megagit/megagit/ranker"
)

// The log's file in .megagit/local/, and its bound.
const (
	File     = "decisions.jsonl"
	MaxBytes = 4 << 20 // about 10,000 decisions; the oldest half goes when full
)

// Entry is one line of the decision log: what the prompt hook decided and
// why. The prompt itself is stored only as a hash and its top terms unless
// hook.log_prompts is on.
type Entry struct {
	Time      string   `json:"time"`
	Session   string   `json:"session"`
	Agent     string   `json:"agent"`
	PromptSHA string   `json:"prompt_sha256"`
	Terms     []string `json:"terms"`
	Prompt    string   `json:"prompt,omitempty"`
	K         int      `json:"k"`
	Reason    string   `json:"reason"`
	ZTop1     float64  `json:"z_top1"`
	ZEnt      float64  `json:"z_ent"`
	// Scores are the top-20 final scores of the candidates and Candidates
	// their number: enough to replay dynamic K with other thresholds (tune).
	Scores     []float64 `json:"scores"`
	Candidates int       `json:"candidates"`
	Skills     []Skill   `json:"skills"`
	Shadow     bool      `json:"shadow,omitempty"`
	// Signals are what the abstention gate read of the ranking: enough to
	// re-fit the gate from the registry's own verdicts (tune --gate).
	Signals *ranker.Signals `json:"signals,omitempty"`
	// Served says a warm `megagit serve` ranked the prompt.
	Served bool `json:"served,omitempty"`
	// Fallback says the prompt was ranked without the configured model,
	// whose `megagit serve` did not answer yet, and with what (the built-in
	// model's id, or "lexical"): its scores and signals are not the
	// model's, so tune leaves it out.
	Fallback  string  `json:"fallback,omitempty"`
	LatencyMS float64 `json:"latency_ms"`
}

// Skill is one emitted skill: injected in full (New) or listed by name
// because the session already has it.
type Skill struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
	New   bool    `json:"new"`
}

// PromptHash is the sha256 of a prompt, hex.
func PromptHash(p string) string {
	h := sha256.Sum256([]byte(p))
	return hex.EncodeToString(h[:])
}

// Parse reads the decision log; unreadable lines are skipped.
func Parse(data []byte) []Entry {
	var out []Entry
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var d Entry
		if json.Unmarshal(line, &d) == nil && d.Time != "" {
			out = append(out, d)
		}
	}
	return out
}
