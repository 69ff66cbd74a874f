package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
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
			if runF != nil {
				return runF(opts)
			}
			return modelUseRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.dir, "dir", "", "a model folder: static (model.json + vectors.npy) or ONNX (model.onnx + tokenizer.json)")
	cmd.Flags().StringVar(&opts.profile, "profile", "", "with --dir: the known model an ONNX folder holds (its pooling, prefixes, floor), e.g. bge-small-en-v1.5")
	return cmd
}

// modelSetting is what `model use` commits, and what it says afterwards.
type modelSetting struct {
	values  map[string]any
	subject string
	notes   []string // stderr lines printed after the commit
}

func modelUseRun(opts *modelUseOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	var set modelSetting
	if opts.dir != "" {
		set, err = folderSetting(e.reg.Root(), opts.dir, opts.profile)
	} else {
		set, err = idSetting(opts.id)
	}
	if err != nil {
		return err
	}
	old, err := e.reg.ReadConfigFile()
	if err != nil {
		return err
	}
	data, err := config.Set(old, set.values)
	if err != nil {
		return err
	}
	hash, err := e.reg.CommitConfig(data, set.subject)
	if err != nil {
		return err
	}
	if hash.IsZero() {
		fmt.Fprintln(opts.app.errOut, "megagit: already in use; nothing to commit")
	} else {
		fmt.Fprintf(opts.app.errOut, "megagit: %s (commit %s)\n", set.subject, hash.String()[:12])
	}
	for _, n := range set.notes {
		fmt.Fprintln(opts.app.errOut, n)
	}
	return nil
}

// idSetting selects a known model by id (stored under its canonical id).
func idSetting(id string) (modelSetting, error) {
	if id == "none" {
		return modelSetting{values: map[string]any{"model.id": id, "model.dir": nil}, subject: "use model none"}, nil
	}
	prof, known := embedcache.ProfileFor(id)
	if !known {
		return modelSetting{}, withHint(fmt.Errorf("%w: unknown model %q", config.ErrInvalid, id), "run `megagit model list` to see the known models")
	}
	set := modelSetting{values: map[string]any{"model.id": prof.ID, "model.dir": nil}, subject: "use model " + prof.ID}
	if prof.Kind == "onnx" {
		dir, _ := embedcache.ModelCacheDir(prof.ID)
		if dir == "" || embedcache.CheckONNXDir(dir) != nil {
			set.notes = append(set.notes, "megagit: hint: "+prof.ID+" is not installed: "+installHint(prof))
		}
		set.notes = append(set.notes, onnxNotes(prof.ID)...)
	}
	return set, nil
}

// folderSetting selects a model folder; profile names the known model an
// ONNX folder holds ("" = by the folder's name, else defaults).
func folderSetting(root, dir, profile string) (modelSetting, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return modelSetting{}, err
	}
	stored := abs
	if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
		stored = filepath.ToSlash(rel) // inside the registry: share it with the repo
	}
	set := modelSetting{values: map[string]any{"model.dir": stored, "model.id": nil}, subject: "use model folder " + stored}
	if !isONNXDir(abs) {
		if _, err := embedcache.LoadStatic(os.DirFS(abs), "."); err != nil {
			return set, withHint(fmt.Errorf("%w: --dir %s: %v", config.ErrInvalid, dir, err),
				"a model folder holds model.json + vectors.npy (a static model) or model.onnx + tokenizer.json (an ONNX model)")
		}
		if profile != "" {
			return set, fmt.Errorf("%w: --profile is for ONNX model folders; %s is a static model", config.ErrInvalid, dir)
		}
		return set, nil
	}
	if err := embedcache.CheckONNXDir(abs); err != nil {
		return set, fmt.Errorf("%w: --dir %s: %v", config.ErrInvalid, dir, err)
	}
	id := ""
	if profile != "" {
		p, known := onnxProfile(profile)
		if !known {
			return set, withHint(fmt.Errorf("%w: unknown ONNX model %q", config.ErrInvalid, profile), "run `megagit model list` to see the known models")
		}
		id = p.ID
		set.values["model.id"] = id
		set.subject += " as " + id
	}
	prof, known := folderProfile(id, abs)
	if !known {
		set.notes = append(set.notes, defaultProfileNote(prof.ID))
	}
	set.notes = append(set.notes, onnxNotes(prof.ID)...)
	return set, nil
}

// onnxNotes is what follows a switch to an ONNX model: it routes lexically
// until its vectors exist (or always, in a build without ONNX).
func onnxNotes(id string) []string {
	if !embedcache.ONNXSupported {
		return []string{"megagit: warning: this megagit was built without ONNX support: it will route with BM25F only"}
	}
	return []string{"megagit: hint: run `megagit embed` to embed the skills with " + id + "; routing stays lexical until then"}
}
