package cli

import (
	"regexp"
	"testing"

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
