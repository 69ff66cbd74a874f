package cli

import (
	"fmt"

	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type skillSwitchOptions struct {
	app     *app
	disable bool
	name    string
	reason  string
	json    bool
}

// newSkillSwitchCmd parses `megagit skill disable` (disable true) or
// `megagit skill enable` into options and hands them to runF, or to
// skillSwitchRun when runF is nil (tests pass a stub).
func newSkillSwitchCmd(a *app, disable bool, runF func(*skillSwitchOptions) error) *cobra.Command {
	opts := &skillSwitchOptions{app: a, disable: disable}
	cmd := &cobra.Command{
		Use:               "enable NAME --reason R",
		Short:             "Let a disabled skill be injected again (an explicit, logged commit)",
		Args:              exactArgs(1, "a skill NAME"),
		ValidArgsFunction: completeSkillArg(a, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			return orRun(runF, skillSwitchRun)(opts)
		},
	}
	why := "why the skill may be injected again (required)"
	if disable {
		cmd.Use = "disable NAME --reason R"
		cmd.Short = "Never inject a skill, whatever its evidence (enable undoes it)"
		cmd.Long = "Turn a skill off: the prompt hook, route, serve and the MCP tools never give it to the model,\n" +
			"while skill list and show still list it (as disabled) and its evidence stays as it is.\n" +
			"The switch is a ledger line and a disabled: key in the skill's mega_meta, committed, so sync\n" +
			"shares it; a read-only skill's (an agent's own folder, a plugin) goes to the user registry.\n" +
			"skill enable NAME --reason R undoes it."
		why = "why the skill is turned off (required)"
	}
	cmd.Flags().StringVar(&opts.reason, "reason", "", why)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: skill, disabled, reason, registry, commit")
	return cmd
}

func skillSwitchRun(opts *skillSwitchOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	sw, err := e.SetDisabled(opts.name, opts.disable, opts.reason, opts.app.now())
	if err != nil {
		return err
	}
	where := ""
	if sw.Skill.NativeKey != "" || sw.Reg.Root() != e.Reg.Root() {
		where = fmt.Sprintf(" (recorded in %s)", shown(workspace.Describe(sw.Reg.Root())))
	}
	if opts.disable {
		fmt.Fprintf(opts.app.errOut, "megagit: %s is disabled: it is never injected until megagit skill enable%s\n", shown(opts.name), where)
	} else {
		fmt.Fprintf(opts.app.errOut, "megagit: %s is enabled again%s\n", shown(opts.name), where)
	}
	if opts.json {
		return printJSON(opts.app.out, map[string]any{"skill": opts.name, "disabled": opts.disable, "reason": opts.reason,
			"registry": sw.Reg.Root(), "commit": sw.Hash.String()})
	}
	fmt.Fprintf(opts.app.out, "%s\n", sw.Hash)
	return nil
}
