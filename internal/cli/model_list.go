package cli

import (
	"fmt"
	"io"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/route/dense"
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
			return orRun(runF, modelListRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func modelListRun(opts *modelListOptions) error {
	cfg, root := modelConfig(opts.app)
	rows, rt := dense.ModelRows(cfg, root)
	defer runtimeFooter(opts.app.errOut, rt)
	if opts.json {
		return printJSON(opts.app.out, rows)
	}
	return printModelTable(opts.app.out, rows)
}

func printModelTable(w io.Writer, rows []dense.ModelRow) error {
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
func runtimeFooter(w io.Writer, rt *dense.RuntimeInfo) {
	switch {
	case !models.ONNXSupported:
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
	root := ""
	if r, err := registryRoot(a); err == nil {
		root = r
		if w, err := a.open(nil); err == nil {
			return w.Cfg, root
		}
	}
	if cfg, _, err := config.Load("", nil); err == nil {
		return cfg, root
	}
	return &config.Config{}, root
}
