package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// groupAnnotation marks a command that only groups subcommands (megagit,
// skill, model, cache, hook): its usage shows "CMD [command]", not CMD alone.
const groupAnnotation = "megagit_group"

// The groups `megagit --help` lists the top-level commands in, in this
// order: what a new user needs first, plumbing last. Every top-level
// command has one (TestEveryCommandInAGroup).
const (
	groupEveryday    = "everyday"
	groupSkills      = "skills"
	groupAgents      = "agents"
	groupTeam        = "team"
	groupModels      = "models"
	groupMaintenance = "maintenance"
)

// commandGroups are the groups' headings, in the order help shows them.
func commandGroups() []*cobra.Group {
	return []*cobra.Group{
		{ID: groupEveryday, Title: "Everyday commands:"},
		{ID: groupSkills, Title: "Manage skills:"},
		{ID: groupAgents, Title: "Connect agents:"},
		{ID: groupTeam, Title: "Share with a team:"},
		{ID: groupModels, Title: "Models and routing:"},
		{ID: groupMaintenance, Title: "Maintenance and reference:"},
	}
}

// usageTemplate is cobra's (v1.10), with two changes: a group has no bare
// usage line of its own, and a help topic (exit-codes) is listed under its
// group, like a command; "Additional help topics" holds only the topics
// that have no group.
const usageTemplate = `Usage:{{if and .Runnable (ne (index .Annotations "` + groupAnnotation + `") "true")}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}{{$cmds := .Commands}}{{if eq (len .Groups) 0}}

Available Commands:{{range $cmds}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{else}}{{range $group := .Groups}}

{{.Title}}{{range $cmds}}{{if (and (eq .GroupID $group.ID) (or .IsAvailableCommand (eq .Name "help") .IsAdditionalHelpTopicCommand))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if not .AllChildCommandsHaveGroup}}

Additional Commands:{{range $cmds}}{{if (and (eq .GroupID "") (or .IsAvailableCommand (eq .Name "help")))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{$topics := false}}{{range .Commands}}{{if and .IsAdditionalHelpTopicCommand (eq .GroupID "")}}{{$topics = true}}{{end}}{{end}}{{if $topics}}

Additional help topics:{{range .Commands}}{{if and .IsAdditionalHelpTopicCommand (eq .GroupID "")}}
  {{rpad .CommandPath .CommandPathPadding}} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

// strictGroups makes every command under c that has subcommands and no run
// function of its own fail with a usage error (exit 2) when the subcommand
// is unknown or missing. Cobra would print the group's help and exit 0
// below the root, and exit 1 for an unknown command at the root.
func strictGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		strictGroups(sub)
	}
	if !c.HasSubCommands() || c.Runnable() {
		return
	}
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[groupAnnotation] = "true"
	c.Args = cobra.ArbitraryArgs
	c.RunE = runGroup
}

// runGroup is a group's own run: with no subcommand it prints the group's
// help on stderr (stdout stays empty) and fails; `megagit help GROUP` and
// `megagit GROUP --help` print it on stdout and succeed.
func runGroup(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	cmd.SetOut(cmd.ErrOrStderr())
	if err := cmd.Help(); err != nil {
		return err
	}
	what := "subcommand"
	if !cmd.HasParent() {
		what = "command"
	}
	return usageShown{usageError{fmt.Errorf("%s needs a %s", cmd.CommandPath(), what)}}
}

// unknownCommand is the usage error for a subcommand cmd does not have,
// with the near names as a hint.
func unknownCommand(cmd *cobra.Command, name string) error {
	err := usageError{fmt.Errorf("unknown command %q for %q", name, cmd.CommandPath())}
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	near := cmd.SuggestionsFor(name)
	if len(near) == 0 {
		return err
	}
	for i, s := range near {
		near[i] = "`" + cmd.CommandPath() + " " + s + "`"
	}
	return withHint(err, "did you mean "+strings.Join(near, " or ")+"?")
}

// newHelpCmd is cobra's help command with a usage error for an unknown
// topic (cobra prints the root's usage and exits 0).
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Show the help of any command",
		Long:  "Help prints the help of any command: megagit help [path to command].",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				return usageError{fmt.Errorf("unknown help topic %q", strings.Join(args, " "))}
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

// examples lays out a command's Examples section from pairs of a command
// line and what it does: each line indented two spaces, its comment after
// it, the comments aligned (a line too long to align gets its comment three
// spaces after it). TestExamples parses every line.
func examples(pairs ...string) string {
	if len(pairs)%2 != 0 {
		panic("examples: want pairs of a command line and a comment")
	}
	const alignUpTo = 64
	width := 0
	for i := 0; i < len(pairs); i += 2 {
		if n := len(pairs[i]); n <= alignUpTo {
			width = max(width, n)
		}
	}
	var b strings.Builder
	for i := 0; i < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte('\n')
		}
		line := pairs[i]
		fmt.Fprintf(&b, "  %-*s   # %s", width, line, pairs[i+1])
	}
	return b.String()
}
