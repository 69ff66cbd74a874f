package main

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
	cmd.AddCommand(newModelListCmd(a), newModelUseCmd(a), newModelPullCmd(a), newModelTrainCmd(a), newModelAdaptCmd(a))
	return cmd
}

type modelListOptions struct {
	app  *app
	json bool
}

func newModelListCmd(a *app) *cobra.Command {
	opts := &modelListOptions{app: a}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Show the built-in model and the known model profiles",
		Args:  exactArgs(0, "no arguments"),
		RunE:  func(cmd *cobra.Command, args []string) error { return modelListRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

// modelRow is one line of `model list`.
type modelRow struct {
	embedcache.Profile
	Installed bool   `json:"installed"`
	Active    bool   `json:"active"`
	Where     string `json:"where"`
}

func modelListRun(opts *modelListOptions) error {
	active := activeModelID(opts.app)
	var rows []modelRow
	for _, p := range embedcache.Profiles() {
		r := modelRow{Profile: p, Active: p.ID == active}
		if p.Builtin {
			_, err := embedcache.Builtin()
			r.Installed, r.Where = err == nil, "built in"
		}
		rows = append(rows, r)
	}
	if opts.json {
		return printJSON(opts.app.out, rows)
	}
	table := make([][]string, 0, len(rows))
	for _, r := range rows {
		name := r.ID
		if r.Builtin {
			name += " (built in)"
		}
		if r.Active {
			name = "* " + name
		}
		table = append(table, []string{name, r.Kind, fmt.Sprint(r.Dim), r.Pooling, r.QueryPrefix,
			fmt.Sprint(r.AbsFloor), r.Tier, fmt.Sprint(r.FusionW), yesNo(r.Installed)})
	}
	return printTable(opts.app.out, []string{"MODEL", "KIND", "DIM", "POOLING", "QUERY PREFIX", "ABS FLOOR", "TIER", "FUSION", "INSTALLED"}, table)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// activeModelID is the model routing would use here (registry config when
// inside one, else the defaults).
func activeModelID(a *app) string {
	file := ""
	if root, err := registryRoot(a); err == nil {
		file = configFile(root)
	}
	cfg, _, err := config.Load(file, nil)
	if err != nil {
		return ""
	}
	if cfg.Model.Dir != "" {
		return "dir:" + cfg.Model.Dir
	}
	return cfg.Model.ID
}

type modelUseOptions struct {
	app *app
	id  string
	dir string
}

func newModelUseCmd(a *app) *cobra.Command {
	opts := &modelUseOptions{app: a}
	cmd := &cobra.Command{
		Use:   "use ID | --dir DIR | none",
		Short: "Choose the semantic model for this registry (a committed setting)",
		Args:  maxArgs(1, "one model ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.id = args[0]
			}
			if (opts.id == "") == (opts.dir == "") {
				return usageError{fmt.Errorf("give either a model ID or --dir DIR")}
			}
			return modelUseRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.dir, "dir", "", "a model folder (static model: model.json + vectors.npy)")
	return cmd
}

func modelUseRun(opts *modelUseOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	values := map[string]any{"model.id": opts.id, "model.dir": nil}
	subject := "use model " + opts.id
	if opts.dir != "" {
		abs, err := filepath.Abs(opts.dir)
		if err != nil {
			return err
		}
		if _, err := embedcache.LoadStatic(os.DirFS(abs), "."); err != nil {
			return fmt.Errorf("--dir %s: %w", opts.dir, err)
		}
		dir := abs
		if rel, err := filepath.Rel(e.reg.Root(), abs); err == nil && filepath.IsLocal(rel) {
			dir = filepath.ToSlash(rel) // inside the registry: share it with the repo
		}
		values = map[string]any{"model.dir": dir, "model.id": nil}
		subject = "use model folder " + dir
	} else if opts.id != "none" {
		if _, known := embedcache.ProfileFor(opts.id); !known {
			return withHint(fmt.Errorf("%w: unknown model %q", config.ErrInvalid, opts.id), "run `megagit model list` to see the known models")
		}
	}
	old, err := e.reg.ReadConfigFile()
	if err != nil {
		return err
	}
	data, err := config.Set(old, values)
	if err != nil {
		return err
	}
	hash, err := e.reg.CommitConfig(data, subject)
	if err != nil {
		return err
	}
	if hash.IsZero() {
		fmt.Fprintln(opts.app.errOut, "megagit: already in use; nothing to commit")
		return nil
	}
	fmt.Fprintf(opts.app.errOut, "megagit: %s (commit %s)\n", subject, hash.String()[:12])
	return nil
}
