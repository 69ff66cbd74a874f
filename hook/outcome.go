package hook

import (
	"strconv"
	"strings"
)

// Windows of seed 001 §2, counted in user prompts after the injection.
const (
	CorrectionWindow = 3
	SuccessWindow    = 5
)

// correctionRE are the correction prompts of seed 001 signal 1. The list is
// small on purpose: a false correction costs a skill -1.0. A prompt counts
// when it starts with "no," / "no." / "nope" / "wrong" / "undo" / "revert
// that", or contains "that's wrong", "that is wrong", "that's not right",
// "not what i asked", "you broke" or "that broke".
var correctionRE = lazyRE(`(?i)^(?:no[,.!]|nope\b|wrong\b|undo\b|revert that\b)|\bthat(?:'s| is) (?:wrong|not right)\b|\bnot what i asked\b|\b(?:you|that) broke\b`)

// successRE is seed 001's SUCCESS_INDICATORS, anchored at the prompt start.
var successRE = lazyRE(`(?i)^(?:commit this|push it|ship it|looks good|perfect|nice|done|deploy it)\b`)

// IsCorrection reports whether a user prompt corrects the previous answer.
func IsCorrection(prompt string) bool { return correctionRE().MatchString(strings.TrimSpace(prompt)) }

// IsSuccess reports whether a user prompt signals the task worked.
func IsSuccess(prompt string) bool { return successRE().MatchString(strings.TrimSpace(prompt)) }

// Outcome is one injection's implicit outcome (seed 001 §2).
type Outcome struct {
	Value  float64
	Signal string // exit-code, correction, success or none
	Detail string
	// Settled is false while the evidence may still change (the windows
	// have not passed and the session has not ended).
	Settled bool
}

// ImplicitOutcome scores the skill injected at turn `at` from what followed,
// in seed 001's priority: the exit code of the first relevant shell command
// after the injection (+1.0 when 0, -0.5 otherwise), a correction within 3
// prompts (-1.0), a success phrase within 5 prompts (+0.5), else +0.1 once 3
// prompts have passed or the session ended (final). A command is relevant
// when one of its words is one of words (the skill's name and trigger-line
// words, see RelevantWords).
func ImplicitOutcome(turns []Turn, at int, words []string, final bool) Outcome {
	if at < 0 || at >= len(turns) {
		return Outcome{}
	}
	set := map[string]bool{}
	for _, w := range words {
		set[w] = true
	}
	for i := at; i < len(turns); i++ {
		for _, c := range turns[i].Commands {
			if !c.Done || !mentions(c.Command, set) {
				continue
			}
			if c.ExitCode == 0 {
				return Outcome{Value: 1, Signal: "exit-code", Detail: "exit 0: " + clip(c.Command, 80), Settled: true}
			}
			return Outcome{Value: -0.5, Signal: "exit-code", Detail: "exit " + strconv.Itoa(c.ExitCode) + ": " + clip(c.Command, 80), Settled: true}
		}
	}
	later := turns[at+1:]
	for i, t := range later {
		if i < CorrectionWindow && IsCorrection(t.Prompt) {
			return Outcome{Value: -1, Signal: "correction", Detail: clip(t.Prompt, 80), Settled: true}
		}
	}
	for i, t := range later {
		if i < SuccessWindow && IsSuccess(t.Prompt) {
			return Outcome{Value: 0.5, Signal: "success", Detail: clip(t.Prompt, 80), Settled: true}
		}
	}
	if final || len(later) >= SuccessWindow {
		return Outcome{Value: 0.1, Signal: "none", Detail: "no signal", Settled: true}
	}
	return Outcome{}
}

// stopWords are trigger-line words too common to make a command relevant.
var stopWords = map[string]bool{
	"use": true, "when": true, "with": true, "that": true, "this": true, "from": true, "your": true,
	"into": true, "have": true, "need": true, "needs": true, "want": true, "what": true, "which": true,
	"the": true, "and": true, "for": true, "are": true, "you": true, "skill": true, "triggers": true,
}

// RelevantWords are the words that make a shell command relevant to a
// skill: its name's parts (3+ letters) and its trigger lines' words (4+
// letters), lowercased, without common words.
func RelevantWords(name string, triggers []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string, minLen int) {
		if len(w) >= minLen && !stopWords[w] && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, w := range words(name) {
		add(w, 3)
	}
	for _, t := range triggers {
		for _, w := range words(t) {
			add(w, 4)
		}
	}
	return out
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

func mentions(cmd string, set map[string]bool) bool {
	for _, w := range words(cmd) {
		if set[w] {
			return true
		}
	}
	return false
}

// clip shortens s to at most n bytes on a rune boundary, on one line.
func clip(s string, n int) string {
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
