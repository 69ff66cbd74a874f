package cli

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/workspace"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

type embedOptions struct {
	app     *app
	flags   flagLookup
	all     bool
	float16 bool // read through config (model.cache_float16), which the flag overrides
	json    bool
}

// newEmbedCmd parses `megagit embed` into options and hands them to runF,
// or to embedRun when runF is nil (tests pass a stub).
func newEmbedCmd(a *app, runF func(*embedOptions) error) *cobra.Command {
	opts := &embedOptions{app: a}
	cmd := &cobra.Command{
		Use:   "embed [--all] [--float16]",
		Short: "Embed changed skills with the active model and commit the vector cache",
		Long: `embed brings the registry's committed embedding cache,
.megagit/embeddings/<model id>/ (vectors.npy + index.json), up to date with
the active model: only skills whose embedded text changed are embedded again
(--all recomputes everything), rows of deleted skills are dropped, and the
two files are committed in one commit of their own. A fresh clone then
routes without embedding anything; route and the hooks read this cache
first and keep vectors they had to compute in .megagit/local/.

The cache also holds the model's vector of a fixed anchor sentence (the row
of skill ".anchor"): when the model now gives that sentence a different
vector (cosine below 0.90), the cached rows came from another build of the
model and embed recomputes every vector. megagit cache verify runs the same
check. --float16 (or model.cache_float16: true) halves the committed size.`,
		Example: examples(
			"megagit embed", "embed the skills that changed, one commit",
			"megagit embed --all", "recompute every vector",
			"megagit embed --float16", "halve the committed cache's size",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.flags = cmd.Flags()
			return orRun(runF, embedRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.all, "all", false, "recompute every vector, not only the changed ones")
	cmd.Flags().BoolVar(&opts.float16, "float16", false, "store float16 vectors (half the size) instead of float32 (config model.cache_float16)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: model, cache folder, skills, texts computed, summary, commit")
	return cmd
}

// activeEmbedder is the configured model; nil when routing is lexical.
// say gets the warning for a model.id that names a retired built-in model.
func activeEmbedder(e *workspace.Workspace, say func(string)) (models.Embedder, error) {
	dense.SayRetired(e.Cfg, say)
	emb, _, err := dense.Load(e.Cfg, e.Reg.Root())
	if errors.Is(err, models.ErrNoBuiltin) {
		return nil, withHint(err, "point model.dir at a static model folder: megagit model use --dir DIR")
	}
	return emb, err
}

// modelLoadHint says how to fix a model that cannot load because ONNX
// Runtime or the model's files are missing: embed, unlike routing, has no
// lexical fallback. Such a model is a configuration problem (exit 5).
func modelLoadHint(cfg *config.Config, err error) error {
	hint := dense.LoadHint(cfg, err)
	if hint == "" {
		return err
	}
	return withHint(fmt.Errorf("%w: %w", config.ErrInvalid, err), hint)
}

func embedRun(opts *embedOptions) error {
	a := opts.app
	e, err := a.open(opts.flags)
	if err != nil {
		return err
	}
	emb, err := activeEmbedder(e, a.say)
	if err != nil {
		return modelLoadHint(e.Cfg, err)
	}
	if emb == nil {
		return withHint(fmt.Errorf("%w: no semantic model is active (model.id is %q), nothing to embed", config.ErrInvalid, e.Cfg.Model.ID),
			"choose one with `megagit model use "+models.BuiltinID+"` or `megagit model use --dir DIR`")
	}
	warn := func(msg string) { a.say("megagit: warning: " + msg) }
	p, problems, err := e.PlanEmbed(emb, opts.all, warn)
	a.warnProblems(problems)
	if err != nil {
		return err
	}
	if err := p.Compute(newEmbedBar(a.errOut, p.Todo(), isTTY(a.errOut))); err != nil {
		return err
	}
	files, err := p.Files(e.Cfg.Model.CacheFloat16)
	if err != nil {
		return err
	}
	hash, err := e.CommitEmbeddings(p, emb.ID(), files)
	switch {
	case errors.Is(err, workspace.ErrCacheDiffers):
		return withHint(err, "restore the committed cache with `git checkout -- "+p.Rel+"`")
	case errors.Is(err, registry.ErrDirty):
		return withHint(err, "megagit embed rewrites "+p.Rel+"/; restore it with `git checkout -- "+p.Rel+"` or commit your change first")
	case err != nil:
		return err
	case hash.IsZero():
		a.say(fmt.Sprintf("megagit: %s up to date (%d skills); nothing to commit", p.Rel, p.Skills()))
	default:
		a.say(fmt.Sprintf("megagit: %s; committed %s (commit %s)", p.Summary(), p.Rel, hash.String()[:12]))
	}
	if !opts.json {
		return nil
	}
	return printJSON(a.out, map[string]any{"model": emb.ID(), "cache": p.Rel, "skills": p.Skills(),
		"texts_computed": p.Todo(), "summary": p.Summary(), "commit": commitString(hash)})
}

// newEmbedBar returns the bar's update function: a bar on a terminal for
// more than one chunk of work, else a no-op.
func newEmbedBar(w io.Writer, total int, tty bool) func(int) {
	if !tty || total <= embedcache.EmbedChunk {
		return func(int) {}
	}
	bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("embedding"), progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
	return func(done int) { bar.Set(done) }
}
