package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/spf13/cobra"
)

type modelListOptions struct {
	app  *app
	json bool
}

// newModelListCmd parses `megagit model list` into options and hands them
// to runF, or to modelListRun when runF is nil (tests pass a stub).
func newModelListCmd(a *app, runF func(*modelListOptions) error) *cobra.Command {
	opts := &modelListOptions{app: a}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Show the built-in model and the known model profiles",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return modelListRun(opts)
		},
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
	// Folder marks model.dir's row: a local folder, not a known profile.
	Folder bool `json:"folder,omitempty"`
	// Supported is false for ONNX models in a build without ONNX support.
	Supported bool `json:"supported"`
	// Runtime is the ONNX Runtime library ONNX rows load (ONNX rows only).
	Runtime *runtimeInfo `json:"onnxruntime,omitempty"`
}

// runtimeInfo is where ONNX models look for ONNX Runtime.
type runtimeInfo struct {
	Path  string `json:"path"`
	Found bool   `json:"found"`
}

func modelListRun(opts *modelListOptions) error {
	cfg, root := modelConfig(opts.app)
	rt := &runtimeInfo{Path: embedcache.RuntimePath(cfg.Model.ONNXRuntime)}
	if _, err := os.Stat(rt.Path); err == nil && rt.Path != "" {
		rt.Found = true
	}
	active := ""
	if p, known := embedcache.ProfileFor(cfg.Model.ID); known && cfg.Model.Dir == "" {
		active = p.ID
	}
	var rows []modelRow
	for _, p := range embedcache.Profiles() {
		r := modelRow{Profile: p, Active: p.ID == active, Supported: true}
		if p.Builtin {
			_, err := embedcache.Builtin()
			r.Installed, r.Where = err == nil, "built in"
		} else if p.Kind == "onnx" {
			r.Where, _ = embedcache.ModelCacheDir(p.ID)
			r.Installed = r.Where != "" && embedcache.CheckONNXDir(r.Where) == nil
			r.Supported, r.Runtime = embedcache.ONNXSupported, rt
		}
		rows = append(rows, r)
	}
	if cfg.Model.Dir != "" {
		rows = append(rows, folderRow(cfg, root, rt))
	}
	defer runtimeFooter(opts.app.errOut, rt)
	if opts.json {
		return printJSON(opts.app.out, rows)
	}
	return printModelTable(opts.app.out, rows)
}

// folderRow describes model.dir's folder as routing will load it.
func folderRow(cfg *config.Config, root string, rt *runtimeInfo) modelRow {
	dir := modelDirPath(cfg, root)
	r := modelRow{Active: true, Folder: true, Where: dir, Supported: true}
	if isONNXDir(dir) {
		r.Profile, _ = folderProfile(cfg.Model.ID, dir)
		r.Installed = embedcache.CheckONNXDir(dir) == nil
		r.Supported, r.Runtime = embedcache.ONNXSupported, rt
		return r
	}
	r.Profile = embedcache.StaticProfile
	r.ID, r.Builtin, r.Measured = filepath.Base(dir), false, false
	if m, err := embedcache.LoadStatic(os.DirFS(dir), "."); err == nil {
		r.ID, r.Dim, r.Installed = m.ID(), m.Dim(), true
	}
	return r
}

func printModelTable(w io.Writer, rows []modelRow) error {
	table := make([][]string, 0, len(rows))
	for _, r := range rows {
		name := r.ID
		switch {
		case r.Builtin:
			name += " (built in)"
		case r.Folder:
			name += " (folder)"
		}
		if r.Active {
			name = "* " + name
		}
		installed := yesNo(r.Installed)
		if !r.Supported {
			installed = "no (not in this build)"
		}
		dim := "?" // an unknown ONNX model's, read from the model file at load
		if r.Dim > 0 {
			dim = fmt.Sprint(r.Dim)
		}
		table = append(table, []string{name, r.Kind, dim, r.Pooling, r.QueryPrefix,
			fmt.Sprint(r.AbsFloor), r.Tier, fmt.Sprint(r.FusionW), installed, r.Where})
	}
	return printTable(w, []string{"MODEL", "KIND", "DIM", "POOLING", "QUERY PREFIX", "ABS FLOOR", "TIER", "FUSION", "INSTALLED", "WHERE"}, table)
}

// runtimeFooter says, on stderr, whether ONNX models can run here.
func runtimeFooter(w io.Writer, rt *runtimeInfo) {
	switch {
	case !embedcache.ONNXSupported:
		fmt.Fprintln(w, "megagit: this megagit was built without ONNX support: it routes with BM25F and the built-in model (ONNX models fall back to BM25F)")
	case rt.Found:
		fmt.Fprintf(w, "megagit: ONNX models load ONNX Runtime from %s (found)\n", rt.Path)
	default:
		fmt.Fprintf(w, "megagit: ONNX models load ONNX Runtime from %s (not found: run scripts/install-onnxruntime.sh, or set MEGAGIT_ONNXRUNTIME_LIB or model.onnxruntime)\n", rt.Path)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// modelConfig is the configuration routing would use here (the registry's
// when inside one, else the defaults) and the registry root ("" outside).
func modelConfig(a *app) (*config.Config, string) {
	file, root := "", ""
	if r, err := registryRoot(a); err == nil {
		file, root = configFile(r), r
	}
	if cfg, _, err := config.Load(file, nil); err == nil {
		return cfg, root
	}
	if cfg, _, err := config.Load("", nil); err == nil {
		return cfg, root
	}
	return &config.Config{}, root
}
