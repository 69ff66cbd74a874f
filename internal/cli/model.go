package cli

import (
	"errors"
	"fmt"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/route/dense"
	"github.com/spf13/cobra"
)

func newModelCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "model", Short: "List, train, adapt and choose the semantic model"}
	cmd.AddCommand(newModelListCmd(a, nil), newModelUseCmd(a, nil), newModelPullCmd(a, nil), newModelTrainCmd(a, nil), newModelAdaptCmd(a, nil))
	return cmd
}

type modelUseOptions struct {
	app     *app
	id      string
	dir     string
	profile string
	json    bool
}

// newModelUseCmd parses `megagit model use` into options and hands them to
// runF, or to modelUseRun when runF is nil (tests pass a stub). Its --dir
// is the model folder: the global -C DIR is taken out before cobra parses.
func newModelUseCmd(a *app, runF func(*modelUseOptions) error) *cobra.Command {
	opts := &modelUseOptions{app: a}
	cmd := &cobra.Command{
		Use:   "use ID | --dir DIR [--profile ID] | none",
		Short: "Choose the semantic model for this registry (a committed setting)",
		Args:  maxArgs(1, "one model ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.id = args[0]
			}
			if (opts.id == "") == (opts.dir == "") {
				return usageError{fmt.Errorf("give either a model ID or --dir DIR")}
			}
			if opts.profile != "" && opts.dir == "" {
				return usageError{fmt.Errorf("--profile goes with --dir (a model ID is its own profile)")}
			}
			return orRun(runF, modelUseRun)(opts)
		},
	}
	cmd.Flags().StringVar(&opts.dir, "dir", "", "a model folder: static (model.json + vectors.npy) or ONNX (model.onnx + tokenizer.json)")
	cmd.Flags().StringVar(&opts.profile, "profile", "", "with --dir: the known model an ONNX folder holds (its pooling, prefixes, floor), e.g. bge-small-en-v1.5")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: the settings written, the commit (\"\" when unchanged), notes")
	return cmd
}

func modelUseRun(opts *modelUseOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	var set dense.Setting
	if opts.dir != "" {
		set, err = dense.FolderSetting(e.Reg.Root(), opts.dir, opts.profile)
	} else {
		set, err = dense.IDSetting(opts.id)
	}
	var he *dense.HintError
	if errors.As(err, &he) {
		return withHint(he.Err, he.Hint)
	}
	if err != nil {
		return err
	}
	old, err := e.Reg.ReadConfigFile()
	if err != nil {
		return err
	}
	data, err := config.Set(old, set.Values)
	if err != nil {
		return err
	}
	hash, err := e.Reg.CommitConfig(data, set.Subject)
	if err != nil {
		return err
	}
	if hash.IsZero() {
		fmt.Fprintln(opts.app.errOut, "megagit: already in use; nothing to commit")
	} else {
		fmt.Fprintf(opts.app.errOut, "megagit: %s (commit %s)\n", set.Subject, hash.String()[:12])
	}
	for _, n := range set.Notes {
		fmt.Fprintln(opts.app.errOut, n)
	}
	if opts.json {
		notes := set.Notes
		if notes == nil {
			notes = []string{}
		}
		return printJSON(opts.app.out, map[string]any{"settings": set.Values, "summary": set.Subject,
			"commit": commitString(hash), "notes": notes})
	}
	return nil
}
