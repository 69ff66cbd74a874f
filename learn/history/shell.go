package history

import (
	"path"
	"path/filepath"
	"strings"
)

// readers are the programs a model reads a file with from a shell: a
// command of one of them naming a SKILL.md reads that skill.
var readers = map[string]bool{
	"cat": true, "head": true, "tail": true, "sed": true, "awk": true, "nl": true,
	"less": true, "more": true, "bat": true, "batcat": true, "view": true,
	"type": true, "get-content": true, "gc": true,
}

// shellReads returns the SKILL.md files a shell command line reads: in
// each of its simple commands (split at ;, &, |, newlines) whose program
// is a reader, each word naming a file called SKILL.md. A `bash -lc
// SCRIPT` (Codex's older shell tool) is read as SCRIPT. Paths are as
// written; skillOf makes them absolute.
func shellReads(line string) []string {
	var out []string
	for _, words := range simpleCommands(line) {
		for len(words) > 0 && (strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "=") || words[0] == "sudo" || words[0] == "command") {
			words = words[1:] // VAR=value, sudo, command
		}
		if len(words) == 0 {
			continue
		}
		prog := strings.ToLower(path.Base(filepath.ToSlash(words[0])))
		if isShell(prog) && len(words) >= 3 && strings.HasPrefix(words[1], "-") && strings.Contains(words[1], "c") {
			out = append(out, shellReads(words[2])...)
			continue
		}
		if !readers[prog] {
			continue
		}
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") && path.Base(filepath.ToSlash(w)) == "SKILL.md" {
				out = append(out, w)
			}
		}
	}
	return out
}

func isShell(prog string) bool {
	switch prog {
	case "bash", "sh", "zsh", "dash":
		return true
	}
	return false
}

// simpleCommands splits a command line into words, a list per simple
// command: quotes ('…', "…") and backslashes are honoured, and ;, &, |
// and newlines outside quotes end a command. What the shell would expand
// ($VAR, globs) stays as written.
func simpleCommands(line string) [][]string {
	var cmds [][]string
	var words []string
	var w strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
			words = nil
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			inWord = true
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) {
					i++
				}
				w.WriteByte(line[i])
			}
		case c == '\\' && i+1 < len(line):
			inWord = true
			i++
			w.WriteByte(line[i])
		case c == ' ' || c == '\t':
			endWord()
		case c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')':
			endCmd()
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	endCmd()
	return cmds
}

// skillOf is the skill a SKILL.md path names (its folder's name) and the
// path made absolute against dir when it is relative and dir is known.
func skillOf(p, dir string) (skill, abs string) {
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) && dir != "" && !strings.HasPrefix(p, "~") && !strings.HasPrefix(p, "$") {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	if filepath.Base(p) != "SKILL.md" {
		return "", ""
	}
	skill = filepath.Base(filepath.Dir(p))
	if skill == "." || skill == string(filepath.Separator) || skill == ".." || skill == "~" {
		return "", ""
	}
	return skill, p
}
