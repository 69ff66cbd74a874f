package cli

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type cacheOptions struct {
	app    *app
	json   bool
	verify bool // exit with the problems code when a cache needs work
}

func newCacheCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "Inspect the embedding caches of the active model: status, verify",
		Long: `Routing reads the committed cache .megagit/embeddings/<model>/ first, then
the local one .megagit/local/embeddings/<model>/ (vectors computed on this
machine only). status shows both, and other models' folders, which routing
ignores. verify checks the same and exits 10 when a cache is corrupt, was
written by another build of the model (the drift anchor moved), or lags
behind the skills, saying what to run.`,
	}
	cmd.AddCommand(newCacheStatusCmd(a, nil), newCacheVerifyCmd(a, nil))
	return cmd
}

// newCacheStatusCmd parses `megagit cache status` into options and hands
// them to runF, or to cacheRun when runF is nil (tests pass a stub).
func newCacheStatusCmd(a *app, runF func(*cacheOptions) error) *cobra.Command {
	return newCacheSubCmd(a, "status", "Show the embedding caches: rows, stale and missing skills, integrity", false, runF)
}

// newCacheVerifyCmd is newCacheStatusCmd that fails on a problem.
func newCacheVerifyCmd(a *app, runF func(*cacheOptions) error) *cobra.Command {
	return newCacheSubCmd(a, "verify", "Check the embedding caches for corruption and model drift", true, runF)
}

func newCacheSubCmd(a *app, verb, short string, verify bool, runF func(*cacheOptions) error) *cobra.Command {
	opts := &cacheOptions{app: a, verify: verify}
	cmd := &cobra.Command{
		Use:   verb + " [--json]",
		Short: short,
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return orRun(runF, cacheRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the report as JSON")
	return cmd
}

func cacheRun(opts *cacheOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	r, err := cacheReport(a, e)
	if err != nil {
		return err
	}
	if opts.json {
		err = printJSON(a.out, r)
	} else {
		err = printCacheReport(a, r)
	}
	if err != nil || !opts.verify {
		return err
	}
	if len(r.Problems) == 0 {
		fmt.Fprintln(a.errOut, "megagit: embedding caches ok")
		return nil
	}
	var hints []string
	for _, p := range r.Problems {
		if h := "run `" + p.Fix + "`"; !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	return withHint(fmt.Errorf("%w: %d embedding cache problem(s)", errProblems, len(r.Problems)), hints...)
}

// cacheReport is the caches' state against the active model.
func cacheReport(a *app, e *workspace.Workspace) (*embedcache.Report, error) {
	emb, err := activeEmbedder(e, a.say)
	if err != nil {
		return nil, err
	}
	r, problems, err := e.CacheStatus(emb)
	a.warnProblems(problems)
	return r, err
}

func printCacheReport(a *app, r *embedcache.Report) error {
	if r.Model != "" {
		fmt.Fprintf(a.out, "active model: %s (dim %d)\n", r.Model, r.Dim)
	}
	header := []string{"CACHE", "FOLDER", "INTEGRITY", "MODEL", "DTYPE", "DIM", "ROWS", "SKILLS", "STALE", "MISSING", "ORPHANS", "ANCHOR"}
	rows := make([][]string, 0, len(r.Caches))
	for _, c := range r.Caches {
		anchor := c.Anchor
		if c.Cosine != nil {
			anchor += fmt.Sprintf(" (%.3f)", *c.Cosine)
		}
		rows = append(rows, []string{c.Kind, c.Dir, c.Integrity, c.Model, c.Dtype, strconv.Itoa(c.Dim), strconv.Itoa(c.Rows),
			strconv.Itoa(c.Skills), strconv.Itoa(len(c.Stale)), strconv.Itoa(len(c.Missing)), strconv.Itoa(len(c.Orphans)), anchor})
	}
	if err := printTable(a.out, header, rows); err != nil {
		return err
	}
	for _, p := range r.Problems {
		fmt.Fprintf(a.out, "problem: %s: %s (fix: %s)\n", p.Cache, p.Problem, p.Fix)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(a.out, "note: %s\n", n)
	}
	return nil
}
