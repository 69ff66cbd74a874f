// Package safetext cleans the text megagit keeps from others — a reason or
// context from a transcript, an MCP client or a teammate's ledger, a
// session id — before it enters a commit message, a ledger line or a
// SKILL.md's evidence: valid UTF-8, one line, no control characters, and a
// bounded length.
//
// It is a pure package: strings in, strings out.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Field is one kind of kept text and its bound, in characters (runes).
type Field struct {
	Name string
	Max  int
}

// The fields of a ledger line (and of the commit that records it). A
// context is the prompt a skill was used for: the hooks remember prompts
// clipped to 4000 bytes, so 4096 characters never clips one of theirs.
var (
	Reason  = Field{Name: "reason", Max: 500}
	Context = Field{Name: "context", Max: 4096}
	Session = Field{Name: "session id", Max: 200}
)

// Ellipsis ends a clipped text.
const Ellipsis = "…"

// Clean returns s as Line does, clipped to f.Max characters (the last one
// an ellipsis) when longer; note then says so ("reason clipped from 2097152
// to 500 characters"), for a log line or a warning, and is "" otherwise.
// Clean is idempotent: a clean text comes back unchanged.
func (f Field) Clean(s string) (clean, note string) {
	s = Line(s)
	n := utf8.RuneCountInString(s)
	if n <= f.Max || f.Max <= 0 {
		return s, ""
	}
	i := 0
	for cut := 0; cut < f.Max-1; cut++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	clean = strings.TrimRightFunc(s[:i], unicode.IsSpace) + Ellipsis
	return clean, fmt.Sprintf("%s clipped from %d to %d characters", f.Name, n, utf8.RuneCountInString(clean))
}

// Line makes s one clean line: invalid UTF-8 becomes U+FFFD, every run of
// white space (newlines and tabs included) one space, with none at either
// end, and control characters (C0, DEL, C1) and the bidirectional
// overrides that reorder what a terminal shows are removed.
func Line(s string) string {
	if isCleanLine(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case Hidden(r):
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// Message makes a multi-line text (a commit message) safe for git: valid
// UTF-8, no NUL or other control character but newline (a tab is a space,
// a carriage return dropped). `git fsck --strict` rejects a commit whose
// message holds a NUL byte.
func Message(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t':
			return ' '
		case Hidden(r):
			return -1
		}
		return r
	}, s)
}

// Hidden reports whether r is a character a terminal acts on instead of
// showing, or that shows as nothing: a control character (C0, DEL, C1,
// which include ESC and BEL), a bidirectional embedding, override,
// isolate or mark, or an invisible format character (zero-width space,
// word joiner and the invisible operators, the byte-order mark, the tag
// characters that spell ASCII no one sees but a model reads). The
// joiners U+200C and U+200D are not Hidden: emoji sequences and the
// scripts that join letters need them.
func Hidden(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7F && r < 0xA0:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200B, r == 0x200E, r == 0x200F, r == 0x061C, r == 0x180E,
		r >= 0x2060 && r <= 0x2064, r == 0xFEFF, r >= 0xE0000 && r <= 0xE007F:
		return true
	}
	return false
}

// Escape shows s for a terminal: every Hidden character and invalid byte
// written as a Go escape (\x1b, \u202e); printable text is left as it is.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && Hidden(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case Hidden(r) && r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08x`, r)
		case Hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || Hidden(r) {
			return true
		}
	}
	return false
}

// isCleanLine is Line's fast path: printable ASCII without double, leading
// or trailing spaces.
func isCleanLine(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7F || (c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ')) {
			return false
		}
	}
	return true
}

// JSON rewrites every Hidden character left raw in encoded JSON (DEL, C1,
// bidirectional controls, invisible format characters: encoding/json
// escapes only C0) as a \u escape, so `--json` output shown on a terminal
// carries none of them, while a JSON reader decodes the same strings.
// Such characters can only stand inside strings, where \u is valid; the
// layout's newlines and tabs are left alone.
func JSON(b []byte) []byte {
	if !needsJSONEscape(b) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...) // encoding/json never writes one; be safe
		case r < 0x7F || !Hidden(r):
			out = append(out, b[i:i+size]...)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
	}
	return out
}

func needsJSONEscape(b []byte) bool {
	for _, r := range string(b) {
		if r >= 0x7F && (r == utf8.RuneError || Hidden(r)) {
			return true
		}
	}
	return false
}
