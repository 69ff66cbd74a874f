package audit

import (
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/megagit/megagit/skillfile"
)

// skillFile is the file a skill folder is named by.
const skillFile = "SKILL.md"

// File audits one file of a skill folder: name is its slash path in the
// folder (a script, by its extension or a `#!` line, is held to the
// script rules too), data its text. It reads nothing else.
func File(name string, data []byte) []Finding {
	text := string(data)
	script := isScript(name, text)
	out := audit(name, text, script, "")
	if path.Base(name) == skillFile {
		out = strongest(append(out, frontmatter(name, data)...))
	}
	sortFindings(out)
	return out
}

// audit runs every rule on text; where opens each message ("in the
// description: ") when text is not the file's own bytes.
func audit(file, text string, script bool, where string) []Finding {
	ix := newLineIndex(text)
	code := codeRanges(text, ix)
	var out []Finding
	out = append(out, chars(file, text, ix, script, where)...)
	out = append(out, forged(file, text, ix, code, where)...)
	out = append(out, directives(file, text, ix, code, where)...)
	if script {
		out = append(out, scriptRules(file, text, ix, where)...)
	} else if isMarkdown(file) {
		out = append(out, markdownDownloads(file, text, ix, where)...)
	}
	out = append(out, blobs(file, text, ix, where)...)
	return out
}

// frontmatter audits the name, description and when_to_use as YAML reads
// them: its escapes ("\e", "\u202e") are the characters they stand for,
// and a description in quotes is not quoted text.
func frontmatter(file string, data []byte) []Finding {
	f, err := skillfile.Parse(file, data)
	if err != nil {
		return nil
	}
	var out []Finding
	for _, field := range []struct{ key, value string }{
		{"name", f.Name()}, {"description", f.Description()}, {"when_to_use", f.WhenToUse()},
	} {
		line := keyLine(string(data), field.key)
		for _, g := range audit(file, field.value, false, "in the "+field.key+": ") {
			g.Line = line
			out = append(out, g)
		}
	}
	return out
}

// strongest keeps, of the findings of one rule on one line, the most
// severe (the first of equals).
func strongest(fs []Finding) []Finding {
	type key struct {
		line int
		rule string
	}
	at := map[key]int{}
	var out []Finding
	for _, f := range fs {
		k := key{f.Line, f.Rule}
		i, ok := at[k]
		switch {
		case !ok:
			at[k] = len(out)
			out = append(out, f)
		case f.Severity.rank() > out[i].Severity.rank():
			out[i] = f
		}
	}
	return out
}

// keyLine is the line of a top-level frontmatter key, 1 if none.
func keyLine(text, key string) int {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `\s*:`)
	loc := re.FindStringIndex(text)
	if loc == nil {
		return 1
	}
	return strings.Count(text[:loc[0]], "\n") + 1
}

// isMarkdown: a Markdown file, which the agent reads as instructions.
func isMarkdown(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdx", ".txt":
		return true
	}
	return false
}

// scriptExts are the extensions of the files the script rules read.
var scriptExts = map[string]bool{
	".sh": true, ".bash": true, ".zsh": true, ".ksh": true, ".fish": true, ".py": true, ".js": true,
	".mjs": true, ".cjs": true, ".ts": true, ".rb": true, ".pl": true, ".php": true, ".ps1": true,
	".psm1": true, ".bat": true, ".cmd": true, ".lua": true,
}

// isScript: a file an agent may run, by its extension or its `#!` line.
func isScript(name, text string) bool {
	return scriptExts[strings.ToLower(path.Ext(name))] || strings.HasPrefix(text, "#!")
}

// lineIndex turns a byte offset into a 1-based line number.
type lineIndex struct{ starts []int }

func newLineIndex(text string) *lineIndex {
	ix := &lineIndex{starts: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			ix.starts = append(ix.starts, i+1)
		}
	}
	return ix
}

func (ix *lineIndex) line(off int) int {
	return sort.Search(len(ix.starts), func(i int) bool { return ix.starts[i] > off })
}

// lineText is the text of the line holding off.
func (ix *lineIndex) lineText(text string, off int) (string, int) {
	l := ix.line(off)
	start := ix.starts[l-1]
	end := len(text)
	if l < len(ix.starts) {
		end = ix.starts[l] - 1
	}
	return text[start:end], start
}

// codeRanges are the byte ranges of text in fenced code blocks (``` or
// ~~~): what a skill quotes, not what it says.
func codeRanges(text string, ix *lineIndex) [][2]int {
	var out [][2]int
	open, fence := -1, ""
	for l, start := range ix.starts {
		end := len(text)
		if l+1 < len(ix.starts) {
			end = ix.starts[l+1]
		}
		t := strings.TrimSpace(text[start:end])
		switch {
		case open < 0 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			open, fence = start, t[:3]
		case open >= 0 && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "":
			out = append(out, [2]int{open, end})
			open = -1
		}
	}
	if open >= 0 {
		out = append(out, [2]int{open, len(text)})
	}
	return out
}

// quoted reports whether text[start:end] is quoted: in a fenced code
// block, an inline code span, or between quotation marks on its line.
func quoted(text string, ix *lineIndex, code [][2]int, start, end int) bool {
	for _, c := range code {
		if start >= c[0] && start < c[1] {
			return true
		}
	}
	line, ls := ix.lineText(text, start)
	before, after := line[:start-ls], ""
	if e := end - ls; e <= len(line) {
		after = line[e:]
	}
	if strings.Count(before, "`")%2 == 1 && strings.Contains(after, "`") {
		return true
	}
	if strings.Count(before, `"`)%2 == 1 && strings.Contains(after, `"`) {
		return true
	}
	if strings.LastIndex(before, "“") > strings.LastIndex(before, "”") && strings.Contains(after, "”") {
		return true
	}
	return false
}
