// Package english is a list of English words, for telling a word the
// catalog lacks from a typo of one it has: "stash" and "unset" are words,
// "seperate" and "pipline" are not. The list is SCOWL's, as Debian's
// wamerican package ships it (COPYRIGHT), reduced to the lower-case words
// of five letters or more (typo correction reads no shorter word);
// README.md has the command that rebuilds it.
package english

import _ "embed"

//go:embed words.txt
var words string

// Has reports whether w (lower case) is a word of the list. It searches
// the sorted list in place, one line at a time: nothing is loaded or
// allocated, so a prompt hook that never asks pays nothing.
func Has(w string) bool {
	lo, hi := 0, len(words)
	for lo < hi {
		mid := lo + (hi-lo)/2
		start := mid
		for start > lo && words[start-1] != '\n' {
			start--
		}
		end := start
		for end < len(words) && words[end] != '\n' {
			end++
		}
		switch line := words[start:end]; {
		case line == w:
			return true
		case line < w:
			lo = end + 1
		default:
			hi = start
		}
	}
	return false
}
