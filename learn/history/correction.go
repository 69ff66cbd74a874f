package history

import (
	"regexp"
	"strings"
	"sync"
)

// correctionRE are the prompts that correct the previous answer. The list is
// small on purpose: a false correction costs a skill -1.0. A prompt counts
// when it starts with "no," / "no." / "nope" / "wrong" / "undo" / "revert
// that", or contains "that's wrong", "that is wrong", "that's not right",
// "not what i asked", "you broke" or "that broke". It is compiled on first
// use, so a megagit command that never tests a prompt does not pay for it
// at start.
var correctionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:no[,.!]|nope\b|wrong\b|undo\b|revert that\b)|\bthat(?:'s| is) (?:wrong|not right)\b|\bnot what i asked\b|\b(?:you|that) broke\b`)
})

// IsCorrection reports whether a user prompt corrects the previous answer:
// it spoils a use read from a session file here, and the stop hook's
// implicit outcome (hook/stop) scores it -1.0. Both import it from this
// package, which imports no hook package.
func IsCorrection(prompt string) bool { return correctionRE().MatchString(strings.TrimSpace(prompt)) }
