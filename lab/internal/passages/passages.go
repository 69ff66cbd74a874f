// Package passages cuts a skill's Markdown body into the passages the
// lab's probes embed as extra rows of the dense channel.
package passages

import "strings"

// Split cuts body into sections under their headings, each cut into windows
// of at most words words, the heading first; fenced code blocks are kept
// as words of their section, their fence lines dropped.
func Split(body string, words int) []string {
	if words <= 0 {
		words = 48
	}
	var out []string
	heading := ""
	var cur []string
	flush := func() {
		for i := 0; i < len(cur); i += words {
			j := min(i+words, len(cur))
			out = append(out, strings.TrimSpace(heading+" "+strings.Join(cur[i:j], " ")))
		}
		cur = nil
	}
	fence := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			fence = !fence
			continue
		}
		if !fence && strings.HasPrefix(t, "#") {
			flush()
			heading = strings.TrimSpace(strings.TrimLeft(t, "#"))
			continue
		}
		cur = append(cur, strings.Fields(t)...)
	}
	flush()
	return out
}
