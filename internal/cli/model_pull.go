package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/models"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

type modelPullOptions struct {
	app           *app
	ctx           context.Context
	id            string
	insecureNoPin bool
	force         bool
	json          bool
	lookup        func(id string) (models.Profile, bool) // models.ProfileFor; tests swap it
}

// newModelPullCmd parses `megagit model pull` into options and hands them
// to runF, or to modelPullRun when runF is nil (tests pass a stub).
func newModelPullCmd(a *app, runF func(*modelPullOptions) error) *cobra.Command {
	opts := &modelPullOptions{app: a, lookup: models.ProfileFor}
	cmd := &cobra.Command{
		Use:   "pull ID",
		Short: "Download an ONNX model into the user cache, sha256-checked",
		Long: "Download an ONNX model's pinned files from the model hub (MEGAGIT_MODEL_HUB, default\n" +
			models.DefaultModelHub + ") into <user cache dir>/megagit/models/ID. Every file is checked before\n" +
			"the folder is installed, in one rename: against its pinned sha256, or, for a model file whose\n" +
			"digest is not known, by embedding a few reference sentences with it and comparing the vectors\n" +
			"with those its profile records (which needs ONNX Runtime). An interrupted download resumes.\n" +
			"A profile without pins is refused unless --insecure-no-pin is given.",
		Example: examples(
			"megagit model pull bge-small-en-v1.5", "download an ONNX model into the user cache",
			"megagit model pull bge-small-en-v1.5 --force", "download it again",
		),
		Args: exactArgs(1, "one model ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ctx, opts.id = cmd.Context(), args[0]
			return orRun(runF, modelPullRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.insecureNoPin, "insecure-no-pin", false, "download files that have no pinned sha256 (their digests are recorded and printed), or a model that cannot be run here to check it")
	cmd.Flags().BoolVar(&opts.force, "force", false, "download again even when the model is installed")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: id, dir, installed (false: it already was)")
	return cmd
}

func modelPullRun(opts *modelPullOptions) error {
	errOut := opts.app.errOut
	prof, known := opts.lookup(opts.id)
	if models.IsRetired(opts.id) {
		return withHint(fmt.Errorf("%w: %s is no longer built into megagit, and it was never downloadable", config.ErrInvalid, opts.id),
			"megagit ships one built-in model, nothing to download: megagit model use "+models.BuiltinID)
	}
	if !known {
		return withHint(fmt.Errorf("%w: unknown model %q", config.ErrInvalid, opts.id),
			"run `megagit model list` to see the known models")
	}
	ctx := opts.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, _ := modelConfig(opts.app)
	res, err := models.Pull(ctx, models.PullOptions{
		Profile: prof, Hub: os.Getenv("MEGAGIT_MODEL_HUB"), UserAgent: "megagit/" + buildVersion().Version,
		Runtime:       models.RuntimePath(cfg.Model.ONNXRuntime),
		InsecureNoPin: opts.insecureNoPin, Force: opts.force, Now: opts.app.now(),
		Download: downloadProgress(errOut),
		Warn:     func(msg string) { fmt.Fprintf(errOut, "megagit: warning: %s\n", msg) },
	})
	useDir := "put model.onnx and tokenizer.json (e.g. an ONNX export from the model hub) in a folder and run `megagit model use --dir DIR`"
	switch {
	case errors.Is(err, models.ErrNotDownloadable):
		return fmt.Errorf("%w: %w", config.ErrInvalid, err)
	case errors.Is(err, models.ErrNoDownload):
		return withHint(fmt.Errorf("%w: %w", config.ErrInvalid, err), useDir)
	case errors.Is(err, models.ErrCannotCheck) && !models.ONNXSupported:
		return withHint(fmt.Errorf("%w: %w", config.ErrInvalid, err),
			"pull it with a megagit built with cgo (the megagit-onnx release archive), which can also route with it")
	case errors.Is(err, models.ErrCannotCheck):
		return withHint(fmt.Errorf("%w: %w", config.ErrInvalid, err),
			"install ONNX Runtime with scripts/install-onnxruntime.sh, or point MEGAGIT_ONNXRUNTIME_LIB (config model.onnxruntime) at the library, then pull again")
	case errors.Is(err, models.ErrUnpinned):
		return withHint(fmt.Errorf("%w: %w", config.ErrInvalid, err),
			"`megagit model pull "+prof.ID+" --insecure-no-pin` downloads "+prof.HubID+"@"+prof.Revision+" anyway and records the digests it got",
			"or "+useDir)
	case err != nil:
		return err
	}
	if res.Installed {
		fmt.Fprintf(errOut, "megagit: installed %s; `megagit model use %s` routes with it\n", prof.ID, prof.ID)
	} else {
		fmt.Fprintf(errOut, "megagit: %s is already installed\n", prof.ID)
	}
	if opts.json {
		return printJSON(opts.app.out, map[string]any{"id": prof.ID, "dir": res.Dir, "installed": res.Installed})
	}
	fmt.Fprintln(opts.app.out, res.Dir)
	return nil
}

// downloadProgress draws a byte bar per file on a terminal and prints one
// line per file otherwise.
func downloadProgress(errOut io.Writer) func(name string, have, total int64) io.Writer {
	return func(name string, have, total int64) io.Writer {
		if !isTTY(errOut) {
			fmt.Fprintf(errOut, "megagit: downloading %s (%s)\n", name, sizeText(total))
			return nil
		}
		bar := progressbar.NewOptions64(total, progressbar.OptionSetWriter(errOut), progressbar.OptionShowBytes(true),
			progressbar.OptionSetDescription(name), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(errOut) }))
		_ = bar.Set64(have)
		return bar
	}
}

func sizeText(n int64) string {
	switch {
	case n <= 0:
		return "size unknown"
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
