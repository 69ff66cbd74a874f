package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestExamples: every line of every Examples section is a megagit command
// line with a comment saying what it does, and it parses as it would at a
// prompt: it reaches the command whose example it is (or one below it),
// every flag is known and takes the value given, required flags are there
// and the command's arguments rule accepts the rest. Each line is parsed by
// a command tree of its own, so no flag value leaks from one to the next.
func TestExamples(t *testing.T) {
	n := 0
	for _, c := range allCommands(newRootCmd(&app{})) {
		if c.Example == "" {
			continue
		}
		lines := strings.Split(c.Example, "\n")
		if len(lines) < 2 || len(lines) > 4 {
			t.Errorf("%s: %d example lines, want 2 to 4", c.CommandPath(), len(lines))
		}
		for _, line := range lines {
			n++
			if err := checkExample(c.CommandPath(), line); err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no examples found")
	}
}

// TestEverydayCommandsHaveExamples: the commands a new user reads first
// each show how they are run.
func TestEverydayCommandsHaveExamples(t *testing.T) {
	for _, c := range newRootCmd(&app{}).Commands() {
		if c.GroupID == groupEveryday && c.Example == "" {
			t.Errorf("megagit %s is an everyday command without an Example", c.Name())
		}
	}
}

// TestCheckExample: the checker itself rejects what it is there to catch.
func TestCheckExample(t *testing.T) {
	for _, c := range []struct{ path, line, want string }{
		{"megagit route", `  megagit route "a prompt"   # fine`, ""},
		{"megagit route", `  megagit route "a prompt" --no-such-flag   # x`, "unknown flag: --no-such-flag"},
		{"megagit route", `  megagit route "a prompt" --top-k many   # x`, "invalid argument"},
		{"megagit route", `  megagit route a prompt   # x`, "expects one PROMPT"},
		{"megagit route", `  megagit route "a prompt"`, "no comment"},
		{"megagit route", `  megagit why "a prompt" x   # x`, "runs megagit why"},
		{"megagit skill", `  megagit skill nosuch   # x`, "unknown subcommand"},
		{"megagit skill", `  megagit skill show   # x`, "expects a skill NAME"},
		{"megagit hook", `  echo '{}' | megagit hook prompt --agent claude   # x`, ""},
		{"megagit route", `  megagit route "unclosed   # x`, "unclosed quote"},
		{"megagit hook", `  megagit hook prompt --agent claude < event.json   # x`, ""},
		{"megagit stats", `  megagit stats --json > stats.json   # x`, ""},
		{"megagit stats", `  megagit stats; megagit log   # x`, "want one command line"},
		{"megagit stats", `  git log   # x`, "want a line that runs megagit"},
	} {
		err := checkExample(c.path, c.line)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v, want no error", c.line, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want one containing %q", c.line, err, c.want)
		}
	}
}

// allCommands is root and every command below it, help and completion
// included.
func allCommands(root *cobra.Command) []*cobra.Command {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var all []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return all
}

// checkExample parses one Examples line of the command at path.
func checkExample(path, line string) error {
	if !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "   ") {
		return errors.New("want the line indented by two spaces")
	}
	words, comment, err := shellWords(line)
	if err != nil {
		return err
	}
	if strings.TrimSpace(comment) == "" {
		return errors.New("no comment: end the line with # and what it does")
	}
	args, err := megagitArgs(words)
	if err != nil {
		return err
	}
	root := newRootCmd(&app{})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if got := cmd.CommandPath(); got != path && !strings.HasPrefix(got, path+" ") {
		return fmt.Errorf("runs %s, not %s", got, path)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	positional := cmd.Flags().Args()
	if cmd.Annotations[groupAnnotation] == "true" {
		if len(positional) > 0 {
			return fmt.Errorf("unknown subcommand %q of %s", positional[0], cmd.CommandPath())
		}
		return fmt.Errorf("%s needs a subcommand", cmd.CommandPath())
	}
	if err := cmd.ValidateArgs(positional); err != nil {
		return err
	}
	if err := cmd.ValidateRequiredFlags(); err != nil {
		return err
	}
	return cmd.ValidateFlagGroups()
}

// megagitArgs is the arguments of the megagit command in a line's words:
// the words after "megagit" in the pipeline's last command (echo ... |
// megagit ...), without a trailing & or the redirections (< FILE, > FILE).
func megagitArgs(words []string) ([]string, error) {
	if n := len(words); n > 0 && words[n-1] == "&" {
		words = words[:n-1]
	}
	for i := len(words) - 1; i >= 0; i-- {
		if words[i] == "|" {
			words = words[i+1:]
			break
		}
	}
	var plain []string
	for i := 0; i < len(words); i++ {
		switch w := words[i]; w {
		case "<", ">":
			if i+1 == len(words) {
				return nil, fmt.Errorf("%s: no file", w)
			}
			i++ // the redirection's file
		case "&", ";":
			return nil, fmt.Errorf("shell operator %q: want one command line", w)
		default:
			plain = append(plain, w)
		}
	}
	words = plain
	if len(words) == 0 || words[0] != "megagit" {
		return nil, errors.New("want a line that runs megagit")
	}
	return words[1:], nil
}

// shellWords splits a line as a POSIX shell would, for the little the
// examples use: blanks between words, '...' and "..." quotes, backslash
// escapes, and # opening a comment at the start of a word. Unquoted |, &,
// ;, < and > are words of their own. It returns the words and the comment.
func shellWords(line string) (words []string, comment string, err error) {
	var w strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == ' ' || ch == '\t':
			flush()
		case ch == '#' && !inWord:
			return words, line[i+1:], nil
		case strings.IndexByte("|&;<>", ch) >= 0:
			flush()
			words = append(words, string(ch))
		case ch == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		case ch == '\'' || ch == '"':
			end := strings.IndexByte(line[i+1:], ch)
			if end < 0 {
				return nil, "", errors.New("unclosed quote")
			}
			quoted := line[i+1 : i+1+end]
			if ch == '"' && strings.ContainsAny(quoted, "\\$`") {
				return nil, "", fmt.Errorf("double-quoted %q: want no \\, $ or ` inside", quoted)
			}
			w.WriteString(quoted)
			inWord = true
			i += end + 1
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	flush()
	return words, "", nil
}
