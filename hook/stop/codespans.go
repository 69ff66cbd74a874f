package stop

import (
	"sort"
	"strings"
)

// tagsOutsideCode returns the attribute text of every <skill-used …> tag
// of a Markdown text that is not quoted as code: tags inside a fenced code
// block (a line opening with ``` or ~~~, up to the closing fence or the
// end) or an inline code span (a run of backticks up to the next run of
// the same length) are examples the assistant shows, not reports. As in
// CommonMark, a tag that starts before a backtick wins over the span (a
// reason may quote `code`), and a backtick run that is never closed is
// plain text.
func tagsOutsideCode(text string) []string {
	var out []string
	for _, seg := range proseSegments(text) {
		out = append(out, inlineTags(seg)...)
	}
	return out
}

// proseSegments cuts text into paragraphs outside fenced code blocks.
func proseSegments(text string) []string {
	var segs []string
	start := 0  // start of the current prose stretch
	fence := "" // the open fence ("```", "~~~~", ...), "" outside one
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += at + 1
		}
		line := strings.TrimLeft(text[at:end], " \t")
		switch {
		case fence == "" && strings.TrimSpace(line) == "":
			// A blank line ends a paragraph, and no code span crosses it.
			segs = append(segs, text[start:end])
			start = end
		case fence == "":
			if f := openingFence(line); f != "" {
				segs = append(segs, text[start:at])
				fence = f
			}
		case closesFence(line, fence):
			fence, start = "", end
		}
		at = end
	}
	if fence == "" {
		segs = append(segs, text[start:])
	}
	return segs
}

// openingFence is the fence a line opens (three or more backticks or
// tildes; a backtick fence's info string holds no backtick), or "".
func openingFence(line string) string {
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	n := len(line) - len(strings.TrimLeft(line, line[:1]))
	if n < 3 || (line[0] == '`' && strings.Contains(line[n:], "`")) {
		return ""
	}
	return line[:n]
}

// closesFence reports whether a line closes fence: the same character, at
// least as many times, then only white space.
func closesFence(line, fence string) bool {
	rest := strings.TrimLeft(line, fence[:1])
	return len(line)-len(rest) >= len(fence) && strings.TrimSpace(rest) == ""
}

// inlineTags scans prose left to right: a tag is taken whole, a code span
// skipped whole.
func inlineTags(s string) []string {
	if !strings.Contains(s, "<skill-used") {
		return nil
	}
	runs := backtickRuns(s)
	var out []string
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			if !strings.HasPrefix(s[i:], "<skill-used") {
				i++
				continue
			}
			if m := tagRE().FindStringSubmatchIndex(s[i:]); m != nil {
				out = append(out, s[i+m[2]:i+m[3]])
				i += m[1]
				continue
			}
			i++
		case '`':
			n := runLen(s, i)
			if close := nextRun(runs[n], i+n); close >= 0 {
				i = close + n
			} else {
				i += n
			}
		default:
			next := strings.IndexAny(s[i:], "<`")
			if next < 0 {
				return out
			}
			i += next
		}
	}
	return out
}

// backtickRuns indexes the start of every run of backticks by its length.
func backtickRuns(s string) map[int][]int {
	runs := map[int][]int{}
	for i := 0; i < len(s); {
		if s[i] != '`' {
			next := strings.IndexByte(s[i:], '`')
			if next < 0 {
				break
			}
			i += next
			continue
		}
		n := runLen(s, i)
		runs[n] = append(runs[n], i)
		i += n
	}
	return runs
}

func runLen(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// nextRun is the first run start at or after from, or -1.
func nextRun(starts []int, from int) int {
	k := sort.SearchInts(starts, from)
	if k == len(starts) {
		return -1
	}
	return starts[k]
}
