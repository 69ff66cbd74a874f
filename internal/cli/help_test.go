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
