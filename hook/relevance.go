package hook

import "strings"

// The prompt hook stores, with each injection, the words that make a shell
// command relevant to the skill (RelevantWords); the stop hook then scores
// the first relevant command's exit code (Mentions). Both sides live here
// so they split text the same way.

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

// Mentions reports whether a shell command has one of the words in set (a
// skill's RelevantWords): the stop hook's test that a command was about
// the skill.
func Mentions(cmd string, set map[string]bool) bool {
	for _, w := range words(cmd) {
		if set[w] {
			return true
		}
	}
	return false
}
