package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/spf13/cobra"
)

type syncOptions struct {
	app    *app
	remote string
	dryRun bool
	json   bool
	all    bool
	// allowUnrelated merges a remote branch with no commit in common.
	allowUnrelated bool
}

// newSyncCmd parses `megagit sync` into options and hands them to runF,
// or to syncRun when runF is nil (tests pass a stub).
func newSyncCmd(a *app, runF func(*syncOptions) error) *cobra.Command {
	opts := &syncOptions{app: a}
	cmd := &cobra.Command{
		Use:   "sync [--remote NAME] [--dry-run]",
		Short: "Share verdicts through the git remote: fetch, merge ledgers, push",
		Long: `sync fetches the remote, then fast-forwards, or builds megagit's own merge
commit when both sides have new commits: ledgers are merged by verdict id,
each touched skill's mega_meta is recomputed from the merged ledger (in time
order, ties by verdict id), and embedding caches are merged row by row. A
file changed differently on both sides (a skill's body, config.yaml) is a
real conflict: sync stops before changing anything and names the files.
A remote branch that shares no commit with yours (a force-push of another
history) is refused unless --allow-unrelated.
Then it pushes; if the remote moved meanwhile it merges again (3 tries).`,
		Example: examples(
			"megagit sync", "fetch, merge the ledgers and push",
			"megagit sync --dry-run", "what would happen, changing nothing",
			"megagit sync --remote team", "with another remote than the upstream",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return orRun(runF, syncRun)(opts)
		},
	}
	cmd.Flags().StringVar(&opts.remote, "remote", "", "git remote to sync with (default: the branch's upstream, else origin)")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "fetch and report what would happen; change no branch, file or remote")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&opts.all, "all", false, "list unchanged skills too")
	cmd.Flags().BoolVar(&opts.allowUnrelated, "allow-unrelated", false, "merge a remote branch that shares no commit with yours (refused otherwise: most often a force-push of another history)")
	return cmd
}

func syncRun(opts *syncOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	useNetwork(e.Cfg)
	res, err := e.Sync(context.Background(), regsync.Options{
		Remote:         opts.remote,
		DryRun:         opts.dryRun,
		Progress:       func(s string) { a.say("megagit: " + s) },
		AllowUnrelated: opts.allowUnrelated,
	})
	// A sync that stopped before it could merge (fetch failed) has nothing
	// to report but its error.
	if res != nil && (err == nil || res.Action != "") {
		if perr := printSyncReport(opts, res); perr != nil && err == nil {
			err = perr
		}
	}
	if c, ok := regsync.IsConflict(err); ok && e.Reg.Layout() == registry.LayoutRef {
		// A plain `git pull` here would merge into the project's branch:
		// the registry's branch is merged in a worktree of its own.
		return withHint(err,
			"to finish with git, in a worktree of the registry's branch: `git worktree add ../megagit-merge "+c.Branch+"`, there `git pull --no-rebase "+c.Remote+" "+c.Branch+"`, resolve those files, `git commit`, then `git worktree remove ../megagit-merge`",
			"then, back here, `megagit resync` (brings .megagit/ up to the branch and rebuilds evidence from the ledgers) and `megagit sync`")
	}
	if c, ok := regsync.IsConflict(err); ok {
		pull := "git pull --no-rebase "
		if c.Unrelated {
			pull += "--allow-unrelated-histories " // git refuses otherwise
		}
		return withHint(err,
			"to finish with git: `"+pull+c.Remote+" "+c.Branch+"`, resolve those files, `git commit`",
			"then `megagit resync` (rebuilds evidence from the ledgers) and `megagit sync`")
	}
	return netErr(err)
}

func printSyncReport(opts *syncOptions, res *regsync.Result) error {
	a := opts.app
	if opts.json {
		return printJSON(a.out, res)
	}
	counts := map[string]int{}
	var rows [][]string
	for _, s := range res.Skills {
		counts[s.Status]++
		if s.Status == regsync.SyncUnchanged && s.Sent == 0 && !opts.all {
			continue
		}
		rows = append(rows, []string{s.Skill, s.Status, strconv.Itoa(s.Received), strconv.Itoa(s.Sent)})
	}
	if len(rows) > 0 {
		if err := printTable(a.out, []string{"SKILL", "STATUS", "RECEIVED", "SENT"}, rows); err != nil {
			return err
		}
	}
	what := res.Action
	if what == "" {
		what = "stopped before merging" // it failed fetching or reading the remote: the error says why
	}
	if res.DryRun {
		what += " (dry run: nothing changed)"
	}
	fmt.Fprintf(a.errOut, "megagit: sync with %s/%s: %s; %d new, %d updated, %d unchanged, %d conflict",
		shown(res.Remote), shown(res.Branch), what, counts[regsync.SyncNew], counts[regsync.SyncUpdated], counts[regsync.SyncUnchanged], conflicts(res, counts[regsync.SyncConflict]))
	if res.Pushed {
		fmt.Fprintf(a.errOut, "; pushed %s", short12(res.After))
	}
	fmt.Fprintln(a.errOut)
	if len(res.Resynced) > 0 {
		fmt.Fprintf(a.errOut, "megagit: rebuilt the evidence of %d skill(s) from their merged ledgers (their SKILL.md counted otherwise): %s\n",
			len(res.Resynced), shown(strings.Join(res.Resynced, ", ")))
	}
	return nil
}

func short12(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// conflicts is what a sync report counts as conflicts: the skills in
// conflict, and each file in conflict that is no skill's (config.yaml, a
// symlink outside the skill folders), so a sync that stopped on a
// conflict never reports none.
func conflicts(res *regsync.Result, skills int) int {
	inSkill := map[string]bool{}
	for _, s := range res.Skills {
		if s.Status == regsync.SyncConflict {
			for _, p := range s.Paths {
				inSkill[p] = true
			}
		}
	}
	n := skills
	for _, p := range res.Conflicts {
		if !inSkill[p] {
			n++
		}
	}
	return n
}
