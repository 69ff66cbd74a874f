package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type layoutOptions struct {
	app  *app
	to   string // "" shows the layout; ref or branch moves to it
	json bool
}

// newLayoutCmd parses `megagit layout` into options and hands them to
// runF, or to layoutRun when runF is nil (tests pass a stub).
func newLayoutCmd(a *app, runF func(*layoutOptions) error) *cobra.Command {
	opts := &layoutOptions{app: a}
	cmd := &cobra.Command{
		Use:   "layout [ref|branch]",
		Short: "Show or change where the registry keeps its history: ref or branch",
		Long: `layout shows where the registry keeps its history, or moves it: ref (a
branch of its own beside a project's) or branch (the checked-out one).`,
		Example: examples(
			"megagit layout", "ref or branch, and the branch the registry commits to",
			"megagit layout ref", "move the history to a branch of its own",
			"megagit layout branch", "commit to the checked-out branch instead",
		),
		Args: maxArgs(1, "ref or branch"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.to = args[0]
			}
			return orRun(runF, layoutRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: the layout, the branch the registry commits to and, after a move, the commit, the moved skill folders and what the project's branch still tracks")
	return cmd
}

func layoutRun(opts *layoutOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	var res registry.LayoutMove
	switch opts.to {
	case "":
		branch, _, err := e.Reg.Head()
		if err != nil {
			return err
		}
		res = registry.LayoutMove{Layout: e.Reg.Layout(), Branch: branch.Short()}
		if res.Layout == registry.LayoutRef {
			a.say(fmt.Sprintf("megagit: ref: the registry keeps its history on its own branch %s; the checked-out branch is never touched", res.Branch))
		} else {
			a.say(fmt.Sprintf("megagit: branch: the registry commits to the checked-out branch %s", res.Branch))
		}
	case string(registry.LayoutRef):
		if res, err = layoutRef(a, e); err != nil {
			return err
		}
	case string(registry.LayoutBranch):
		if res, err = e.Reg.MoveToBranch(); err != nil {
			return err
		}
		a.say(fmt.Sprintf("megagit: the registry now commits to the checked-out branch %s (merge commit %s); delete its old branch when you like: git branch -D %s",
			res.Branch, res.Commit[:12], registry.RefBranch.Short()))
	default:
		return usageError{fmt.Errorf("megagit layout: %q is not a layout: want ref or branch", opts.to)}
	}
	if opts.json {
		if res.Skills == nil {
			res.Skills = map[string]string{}
		}
		if res.Untrack == nil {
			res.Untrack = []string{}
		}
		return printJSON(a.out, res)
	}
	fmt.Fprintf(a.out, "%s\t%s\n", res.Layout, res.Branch)
	return nil
}

// layoutRef moves the registry of e to the ref layout (its config's roots
// become RefSkillsRoot) and says on stderr what moved and what the
// project's branch still tracks. doctor --fix runs it too, to finish a
// move an older megagit left half done.
func layoutRef(a *app, e *workspace.Workspace) (registry.LayoutMove, error) {
	res, err := e.MoveToRef()
	if err != nil {
		return res, err
	}
	a.say(fmt.Sprintf("megagit: the registry now keeps its history on its own branch %s (commit %s)", res.Branch, res.Commit[:12]))
	moved := make([]string, 0, len(res.Skills))
	for from, to := range res.Skills {
		moved = append(moved, from+" -> "+to)
	}
	sort.Strings(moved)
	for _, m := range moved {
		a.say(fmt.Sprintf("megagit: moved %s", m))
	}
	fmt.Fprintf(a.errOut, "megagit: your branch still tracks the registry's old files; remove them from the project with git (on its main branch, so later branches lack them too):\n")
	// .megagit/ stays on disk (the registry's files now); the old
	// skill folders go (their copies are in .megagit/skills).
	steps := "git rm -r -q --cached " + res.Untrack[0]
	if len(res.Untrack) > 1 {
		steps += " && git rm -r -q " + strings.Join(res.Untrack[1:], " ")
	}
	fmt.Fprintf(a.errOut, "  %s && git commit -m \"megagit: the registry moved to its own branch\"\n", steps)
	return res, nil
}
