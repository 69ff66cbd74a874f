package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

func newModelCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "model", Short: "List, pull, train, adapt and choose the semantic model"}
	cmd.Example = examples(
		"megagit model list", "the built-in model and the known ones",
		"megagit model pull bge-small-en-v1.5", "download an ONNX model",
		"megagit model use bge-small-en-v1.5", "route with it (one commit)",
	)
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
		Short: "Choose the semantic model: an ID (committed), a folder or none",
		Long: `model use chooses the semantic model: a model ID for the registry
(committed), a model folder for this machine only (--dir), or none (the
lexical channel alone).`,
		Example: examples(
			"megagit model use bge-small-en-v1.5", "for everyone who uses the registry (committed)",
			"megagit model use --dir ~/models/my-model", "a model folder, for this machine only",
			"megagit model use none", "the lexical channel alone",
		),
		Args: maxArgs(1, "one model ID"),
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
	if opts.dir != "" {
		return modelUseLocal(opts, e, set)
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
		opts.app.say(fmt.Sprintf("megagit: %s (commit %s)", set.Subject, hash.String()[:12]))
	}
	// This machine's folder would override the committed id: it goes.
	if e.Files.Local == "" {
		// git tracks the local file: megagit does not read it anyway.
	} else if dropped, err := setLocalConfig(e, map[string]any{"model.dir": nil, "model.id": nil}); err != nil {
		return err
	} else if dropped {
		opts.app.say(fmt.Sprintf("megagit: this machine's model choice is removed from %s", config.LocalPath))
	}
	for _, n := range set.Notes {
		fmt.Fprintln(opts.app.errOut, n)
	}
	if opts.json {
		return printJSON(opts.app.out, map[string]any{"settings": set.Values, "summary": set.Subject,
			"commit": commitString(hash), "notes": orEmpty(set.Notes)})
	}
	return nil
}

// modelUseLocal writes a model folder, a path of this machine, to the
// registry's .megagit/local/config.yaml: a committed config may not name
// one (config.Ignored), so each clone chooses its own.
func modelUseLocal(opts *modelUseOptions, e *workspace.Workspace, set dense.Setting) error {
	changed, err := setLocalConfig(e, set.Values)
	if err != nil {
		return err
	}
	if changed {
		opts.app.say(fmt.Sprintf("megagit: %s on this machine (%s, never committed)", set.Subject, config.LocalPath))
	} else {
		fmt.Fprintln(opts.app.errOut, "megagit: already in use; nothing to change")
	}
	for _, n := range set.Notes {
		fmt.Fprintln(opts.app.errOut, n)
	}
	if opts.json {
		return printJSON(opts.app.out, map[string]any{"settings": set.Values, "summary": set.Subject,
			"commit": "", "file": config.LocalFile(workspace.ConfigFile(e.Reg.Root())), "notes": orEmpty(set.Notes)})
	}
	return nil
}

// setLocalConfig sets keys of the registry's .megagit/local/config.yaml (a
// nil value removes one), under the registry lock; it reports whether the
// file changed. A local config git tracks is refused: it is not this
// machine's.
func setLocalConfig(e *workspace.Workspace, values map[string]any) (bool, error) {
	file := config.LocalFile(workspace.ConfigFile(e.Reg.Root()))
	if e.Files.Local == "" {
		return false, withHint(fmt.Errorf("%w: git tracks %s, so it is not this machine's own", config.ErrInvalid, config.LocalPath),
			"`megagit doctor --fix` stops tracking it, keeping the file")
	}
	lock, err := e.Reg.Local().Acquire(e.Reg.Options().LockTimeout)
	if err != nil {
		return false, err
	}
	defer lock.Release()
	old, err := local.ReadRegular(file, local.MaxConfig)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	if old == nil {
		for _, v := range values {
			if v != nil {
				old = []byte("# This machine's own megagit settings for this registry, never committed.\n")
				break
			}
		}
		if old == nil {
			return false, nil // nothing to remove
		}
	}
	data, err := config.Set(old, values)
	if err != nil {
		return false, fmt.Errorf("%s: %w", file, err)
	}
	if bytes.Equal(normalYAML(old), normalYAML(data)) {
		return false, nil
	}
	return true, local.WriteFileAtomic(file, data, 0o600)
}

// normalYAML is a config file's data as config.Set writes it, so that an
// edit that changes nothing is told from one that does.
func normalYAML(data []byte) []byte {
	if out, err := config.Set(data, nil); err == nil {
		return out
	}
	return data
}

// orEmpty is notes, never nil (a JSON list).
func orEmpty(notes []string) []string {
	if notes == nil {
		return []string{}
	}
	return notes
}
