package audit

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// minBlob is the shortest base64 run the audit reports: 150 bytes
// encoded, longer than a hash, a key id or a JWT header.
const minBlob = 200

var blobRE = regexp.MustCompile(fmt.Sprintf(`[A-Za-z0-9+/]{%d,}={0,2}|[A-Za-z0-9_-]{%[1]d,}={0,2}`, minBlob))

// blobs reports long base64 runs: decoding to binary (an image inlined
// as a data: URI, say), low; to text, medium, which the audit then reads
// as a script; high when that text holds a high finding.
func blobs(file, text string, ix *lineIndex, where string) []Finding {
	var out []Finding
	if !longRun(text, minBlob) {
		return nil // the expression below is a large catalog's slowest: a text without such a run is not searched
	}
	for _, loc := range blobRE.FindAllStringIndex(text, -1) {
		run := text[loc[0]:loc[1]]
		if !mixed(run) {
			continue
		}
		data, ok := decode(run)
		if !ok {
			continue
		}
		line := ix.line(loc[0])
		f := Finding{File: file, Line: line, Rule: RuleBase64, Severity: Low,
			Message: where + fmt.Sprintf("a %d-character base64 blob decoding to %d bytes of binary", len(run), len(data))}
		if isText(data) {
			decoded := string(data)
			f.Severity = Medium
			f.Message = where + fmt.Sprintf("a %d-character base64 blob hiding text: %q", len(run), clip(oneLine(decoded), 60))
			for _, g := range audit(file, decoded, true, "") {
				if g.Severity == High && g.Rule != RuleBase64 {
					f.Severity = High
					f.Message = where + fmt.Sprintf("a %d-character base64 blob hiding text where %s: %s", len(run), g.Rule, g.Message)
					break
				}
			}
		}
		out = append(out, f)
	}
	return out
}

// mixed: upper and lower case letters and digits, as base64 of anything
// but a tiny alphabet has; a rule of dashes or a long word has not.
func mixed(s string) bool {
	var up, low, dig bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		up = up || c >= 'A' && c <= 'Z'
		low = low || c >= 'a' && c <= 'z'
		dig = dig || c >= '0' && c <= '9'
	}
	return up && low && dig
}

// decode reads s as standard or URL-safe base64, padded or not.
func decode(s string) ([]byte, bool) {
	s = strings.TrimRight(s, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	data, err := enc.DecodeString(s)
	return data, err == nil
}

// isText: valid UTF-8 that is nearly all printable or white space.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	bad, n := 0, 0
	for _, r := range string(b) {
		n++
		if !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			bad++
		}
	}
	return n > 0 && bad*20 <= n
}

// longRun says whether text holds n characters in a row of either base64
// alphabet (letters, digits, + / - _): what blobRE needs to match.
func longRun(text string, n int) bool {
	run := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '+', c == '/', c == '-', c == '_':
			run++
			if run >= n {
				return true
			}
		default:
			run = 0
		}
	}
	return false
}
