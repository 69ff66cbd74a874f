package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// placeholderRE is what a flag's value may be called in help: a type name
// pflag picks (string, int, ...) or an upper-case name (DIR, KEY=V1,V2,...).
var placeholderRE = regexp.MustCompile(`^(?:[a-z]+|[A-Z][A-Z0-9_=.,-]*)$`)

// TestHelpPlaceholders: help shows a value only for a flag that takes one,
// and calls it something a user can type. pflag takes the first
// backquoted word of a usage string as the value's name, so a usage that
// quotes a command in backquotes makes `--mcp megagit mcp` appear in help
// for a flag that takes no value.
func TestHelpPlaceholders(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			switch {
			case f.Value.Type() == "bool" && name != "":
				t.Errorf("%s --%s takes no value, but help shows one: %q", c.CommandPath(), f.Name, name)
			case f.Value.Type() != "bool" && !placeholderRE.MatchString(name):
				t.Errorf("%s --%s: help calls its value %q", c.CommandPath(), f.Name, name)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(&app{}))
}

// TestEveryCommandInAGroup: `megagit --help` lists every top-level command
// (help, completion and the help topics too) under one of the groups, and
// every group has a command; a command added without a GroupID would
// otherwise land in a trailing "Additional Commands" list.
func TestEveryCommandInAGroup(t *testing.T) {
	root := newRootCmd(&app{})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	used := map[string]int{}
	for _, c := range root.Commands() {
		switch {
		case c.GroupID == "":
			t.Errorf("megagit %s is in no group: set its GroupID where newRootCmd adds it", c.Name())
		case !root.ContainsGroup(c.GroupID):
			t.Errorf("megagit %s: no group %q", c.Name(), c.GroupID)
		}
		used[c.GroupID]++
	}
	for _, g := range root.Groups() {
		if used[g.ID] == 0 {
			t.Errorf("group %q (%s) has no command", g.ID, g.Title)
		}
	}
}

// maxShort is the longest Short: a help listing's line (two spaces, the
// name padded to the longest, a space, the Short) then fits 80 columns.
const maxShort = 70

// nounStarts are first words of a Short that describe instead of telling
// what the command does ("The decision log", "What the codes mean").
var nounStarts = []string{"A", "An", "The", "What", "How", "Which", "Its", "This"}

// TestShortDescriptions: every command's Short (the line help lists it
// with) is in one voice, cobra's own: an imperative verb phrase in sentence
// case ("Route a prompt: ..."), no period at the end, one line of at most
// maxShort characters. The root's Short is megagit's tagline, not an
// action: only its form is checked.
func TestShortDescriptions(t *testing.T) {
	root := newRootCmd(&app{})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		s, path := c.Short, c.CommandPath()
		first, _ := utf8.DecodeRuneInString(s)
		word, _, _ := strings.Cut(s, " ")
		switch {
		case s == "":
			t.Errorf("%s: no Short", path)
		case strings.TrimSpace(s) != s || strings.Contains(s, "\n"):
			t.Errorf("%s: Short %q: want one line, without leading or trailing space", path, s)
		case !unicode.IsUpper(first):
			t.Errorf("%s: Short %q: want a capital first letter, as the others", path, s)
		case strings.HasSuffix(s, ".") || strings.HasSuffix(s, ":"):
			t.Errorf("%s: Short %q: want no period or colon at the end", path, s)
		case utf8.RuneCountInString(s) > maxShort:
			t.Errorf("%s: Short %q: %d characters, want at most %d (the rest belongs in Long)", path, s, utf8.RuneCountInString(s), maxShort)
		case c.HasParent() && slices.Contains(nounStarts, word):
			t.Errorf("%s: Short %q: want a verb phrase (what the command does), not a description", path, s)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
