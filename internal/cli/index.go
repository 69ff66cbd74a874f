package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route/index"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type indexOptions struct {
	app        *app
	json       bool
	background bool
}

// newIndexCmd parses `megagit index` into options and hands them to runF,
// or to indexRun when runF is nil (tests pass a stub).
func newIndexCmd(a *app, runF func(*indexOptions) error) *cobra.Command {
	opts := &indexOptions{app: a}
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Bring the compiled route index up to date now",
		Long: `Bring the compiled route index in .megagit/local/ up to date: compare it with
every skill and ledger, re-read what changed and embed the skills with the
configured model. route, why and serve do this on every call; the prompt hook
answers from the index it has (its cost does not grow with the catalog) and
then starts ` + "`megagit index --background`" + ` when the index may be out of date,
so the next prompt sees the change (hook.refresh in ` + "`megagit config`" + `).`,
		Example: examples(
			"megagit index", "bring the index up to date now",
			"megagit index --json", "the same, reporting JSON",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return orRun(runF, indexRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&opts.background, "background", false, "as the prompt hook runs it: print nothing, log failures in .megagit/local/hook.log, and leave the work to a refresh already running")
	return cmd
}

type indexJSON struct {
	Skills  int    `json:"skills"`
	Model   string `json:"model,omitempty"`
	Vectors bool   `json:"vectors"`
	// Fallback is the model the prompt hook routes with until the ONNX
	// model's server answers.
	Fallback string `json:"fallback,omitempty"`
	Problems int    `json:"problems"`
}

func indexRun(opts *indexOptions) error {
	a := opts.app
	if opts.background {
		return indexBackground(a)
	}
	w, err := a.open(nil)
	if err != nil {
		return err
	}
	// Wait for a refresh the prompt hook started, rather than doing its
	// work twice.
	lock, err := w.Reg.Local().AcquireFile(index.RefreshLock, w.Cfg.Lock.Timeout)
	if err != nil {
		return err
	}
	defer lock.Release()
	c, sem, bad, err := w.Compiled(a.say, false)
	a.warnProblems(bad)
	if err != nil {
		return err
	}
	out := indexJSON{Skills: len(c.Docs), Problems: len(bad), Vectors: sem != nil}
	if sem != nil {
		out.Model = sem.Model
	}
	if c.Fallback != nil {
		out.Fallback, _, _ = strings.Cut(c.Fallback.Key, "@")
	}
	if opts.json {
		return printJSON(a.out, out)
	}
	printIndex(a.out, out)
	return nil
}

func printIndex(w io.Writer, x indexJSON) {
	model := "lexical routing"
	if x.Vectors {
		model = "vectors of " + x.Model
	}
	if x.Fallback != "" {
		model += ", and of " + x.Fallback + " for the prompt hook until megagit serve answers"
	}
	fmt.Fprintf(w, "compiled route index: %d skills, %s; up to date\n", x.Skills, model)
}

// indexBackground is `megagit index --background`: the prompt hook's
// refresh. It prints nothing and fails silently for the agent's sake,
// with the reason in hook.log; when another refresh holds the lock, that
// one does the work.
func indexBackground(a *app) error {
	logIn := func(dir local.Dir, err error) {
		hook.Log(io.Discard, &dir, a.now(), "megagit", "index", err)
	}
	// The hook's own reading of the config: a bad setting is set aside
	// and logged, so the index matches the settings the hook answers with.
	w, err := workspace.OpenHook(a.workDir())
	if err != nil {
		if root, ferr := local.Find(a.workDir()); ferr == nil {
			logIn(local.Open(root, 0), err)
		}
		return nil
	}
	dir := w.Reg.Local()
	logf := func(err error) { logIn(dir, err) }
	for _, p := range w.Problems {
		logf(p)
	}
	lock, err := dir.AcquireFile(index.RefreshLock, 0)
	if errors.Is(err, local.ErrLocked) {
		return nil
	}
	if err != nil {
		logf(err)
		return nil
	}
	defer lock.Release()
	if _, _, _, err := w.Compiled(func(string) {}, false); err != nil {
		logf(fmt.Errorf("refreshing the compiled index: %w", err))
	}
	return nil
}
