package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/ranker/route/dense"
	"github.com/megagit/megagit/registry"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

type embedOptions struct {
	app     *app
	flags   flagLookup
	all     bool
	float16 bool // read through config (model.cache_float16), which the flag overrides
}

func newEmbedCmd(a *app) *cobra.Command {
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
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.flags = cmd.Flags()
			return embedRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.all, "all", false, "recompute every vector, not only the changed ones")
	cmd.Flags().BoolVar(&opts.float16, "float16", false, "store float16 vectors (half the size) instead of float32 (config model.cache_float16)")
	return cmd
}

// activeEmbedder is the configured model; nil when routing is lexical.
func activeEmbedder(e *env) (embedcache.Embedder, error) {
	emb, _, err := loadEmbedder(e.cfg, e.reg.Root())
	if errors.Is(err, embedcache.ErrNoBuiltin) {
		return nil, withHint(err, "point model.dir at a static model folder: megagit model use --dir DIR")
	}
	return emb, err
}

// modelLoadHint says how to fix a model that cannot load because ONNX
// Runtime or the model's files are missing: embed, unlike routing, has no
// lexical fallback. Such a model is a configuration problem (exit 5).
func modelLoadHint(cfg *config.Config, err error) error {
	var hint string
	switch {
	case errors.Is(err, embedcache.ErrNoRuntime) && !embedcache.ONNXSupported:
		hint = "this megagit was built without ONNX support: build it with cgo (CGO_ENABLED=1, no -tags noonnx), or embed with the built-in model: `megagit model use " + embedcache.BuiltinID + "`"
	case errors.Is(err, embedcache.ErrNoRuntime):
		hint = "install ONNX Runtime with scripts/install-onnxruntime.sh, or point MEGAGIT_ONNXRUNTIME_LIB (config model.onnxruntime) at the library"
	case errors.Is(err, embedcache.ErrNoModel) && cfg.Model.Dir != "":
		hint = "model.dir needs model.onnx and tokenizer.json: pick a folder holding both with `megagit model use --dir DIR`, or install a known model with `megagit model pull ID`"
	case errors.Is(err, embedcache.ErrNoModel):
		prof, _ := onnxProfile(cfg.Model.ID)
		if hint = installHint(prof); !strings.Contains(hint, "--dir") {
			hint += ", or use a folder holding its model.onnx and tokenizer.json: `megagit model use --dir DIR --profile " + prof.ID + "`"
		}
	default:
		return err
	}
	return withHint(fmt.Errorf("%w: %w", config.ErrInvalid, err), hint)
}

// currentItems are the texts routing embeds for the registry's skills now.
func currentItems(a *app, e *env) ([]embedcache.DocText, error) {
	docs, err := e.docs(a)
	if err != nil {
		return nil, err
	}
	return dense.EmbedItems(docs), nil
}

func embedRun(opts *embedOptions) error {
	a := opts.app
	e, err := a.open(opts.flags)
	if err != nil {
		return err
	}
	emb, err := activeEmbedder(e)
	if err != nil {
		return modelLoadHint(e.cfg, err)
	}
	if emb == nil {
		return withHint(fmt.Errorf("%w: no semantic model is active (model.id is %q), nothing to embed", config.ErrInvalid, e.cfg.Model.ID),
			"choose one with `megagit model use "+embedcache.BuiltinID+"` or `megagit model use --dir DIR`")
	}
	items, err := currentItems(a, e)
	if err != nil {
		return err
	}
	warn := func(msg string) { fmt.Fprintf(a.errOut, "megagit: warning: %s\n", msg) }
	p, err := planEmbed(emb, e.reg.Root(), items, opts.all, warn)
	if err != nil {
		return err
	}
	computed, err := embedWithProgress(a.errOut, emb, p.todo)
	if err != nil {
		return err
	}
	for k, i := range p.todoAt {
		p.vecs[i] = computed[k]
	}
	files, err := p.files(e.cfg.Model.CacheFloat16)
	if err != nil {
		return err
	}
	return p.commit(a, e.reg, files)
}

// commit records the cache files in a commit of their own.
func (p *embedPlan) commit(a *app, reg *registry.Registry, files map[string][]byte) error {
	summary := p.summary()
	id := p.emb.ID()
	msg := fmt.Sprintf("embeddings(%s): %s\n\nMegagit-Action: embed\nMegagit-Model: %s\n", id, summary, id)
	hash, err := reg.CommitFiles(msg, files)
	if errors.Is(err, registry.ErrDirty) {
		return withHint(err, "megagit embed rewrites "+p.rel+"/; restore it with `git checkout -- "+p.rel+"` or commit your change first")
	}
	if err != nil {
		return err
	}
	if hash.IsZero() {
		fmt.Fprintf(a.errOut, "megagit: %s up to date (%d skills); nothing to commit\n", p.rel, len(p.items)/2)
		return nil
	}
	fmt.Fprintf(a.errOut, "megagit: %s; committed %s (commit %s)\n", summary, p.rel, hash.String()[:12])
	return nil
}

// embedPlan is one embed run: the vectors the committed cache already
// holds and the texts left to compute.
type embedPlan struct {
	emb     embedcache.Embedder
	items   []embedcache.DocText
	rel     string      // the cache folder, registry-relative
	vecs    [][]float32 // per item; the computed ones are filled in later
	todo    []embedcache.DocText
	todoAt  []int
	changed map[string]bool // skills with a text to compute
	anchor  []float32       // the old cache's anchor, kept while its rows are
	noteAdd bool            // the old cache predates anchors: one is added
	dropped int             // skills of the old cache no longer in the registry
	drift   string          // why every vector is recomputed, if the anchor moved
}

// planEmbed reads the committed cache in place (HEAD's files must stay as
// they are until the commit writes the new ones) and reuses its vectors by
// text sha, unless --all, or unless its anchor says another build of the
// model wrote it: then nothing in it can be trusted.
func planEmbed(emb embedcache.Embedder, root string, items []embedcache.DocText, all bool, warn func(string)) (*embedPlan, error) {
	dir := embedcache.CacheDir(root, emb.ID())
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return nil, err
	}
	p := &embedPlan{emb: emb, items: items, rel: filepath.ToSlash(rel), vecs: make([][]float32, len(items)), changed: map[string]bool{}}
	var old *embedcache.Cache
	if !all {
		old = embedcache.OpenCache(dir, embedcache.CacheKey(emb), emb.Dim(), warn)
		p.dropped = droppedSkills(old, items)
		if old, err = p.checkAnchor(old, warn); err != nil {
			return nil, err
		}
	}
	for i, it := range items {
		if old != nil {
			if v, ok := old.Get(embedcache.TextSHA(it.Text)); ok {
				p.vecs[i] = v
				continue
			}
		}
		p.todo, p.todoAt = append(p.todo, it), append(p.todoAt, i)
		p.changed[it.Skill] = true
	}
	return p, nil
}

// checkAnchor keeps the old cache's anchor, or drops the whole cache when
// its anchor has drifted.
func (p *embedPlan) checkAnchor(old *embedcache.Cache, warn func(string)) (*embedcache.Cache, error) {
	anchor, ok := old.Anchor()
	if !ok {
		p.noteAdd = old.Len() > 0
		return old, nil
	}
	d, err := embedcache.CheckDrift(p.emb, anchor)
	if err != nil {
		return nil, err
	}
	if d.Drifted {
		p.drift = fmt.Sprintf("anchor cosine %.2f < %.2f", d.Cosine, embedcache.DriftThreshold)
		warn(fmt.Sprintf("%s was written by another build of %s (%s); recomputing every vector", p.rel, p.emb.ID(), p.drift))
		return nil, nil
	}
	p.anchor = anchor
	return old, nil
}

// files builds the new cache in a temp folder: the anchor row first, then
// two rows per skill in the skills' order, so the files depend only on the
// skills and the model, not on the edit history.
func (p *embedPlan) files(float16 bool) (map[string][]byte, error) {
	anchor := p.anchor
	if anchor == nil || len(p.todo) == len(p.items) { // nothing old is kept: date the cache now
		var err error
		if anchor, err = embedcache.EmbedAnchor(p.emb); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "megagit-embed-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	c := embedcache.OpenCache(tmp, embedcache.CacheKey(p.emb), p.emb.Dim(), nil)
	c.SetAnchor(anchor)
	for i, it := range p.items {
		c.Put(it.Skill, it.Field, embedcache.TextSHA(it.Text), p.vecs[i])
	}
	if err := c.Save(float16); err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, name := range []string{"vectors.npy", "index.json"} {
		data, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			return nil, err
		}
		files[p.rel+"/"+name] = data
	}
	return files, nil
}

// summary says how many skills were embedded and how many reused: a
// changed skill re-embeds only itself.
func (p *embedPlan) summary() string {
	n := len(p.items) / 2
	s := fmt.Sprintf("embedded %d, kept %d skills with %s (%d of %d texts computed",
		len(p.changed), n-len(p.changed), p.emb.ID(), len(p.todo), len(p.items))
	if p.dropped > 0 {
		s += fmt.Sprintf(", %d deleted skill(s) dropped", p.dropped)
	}
	if p.drift != "" {
		s += ", all recomputed: " + p.drift
	} else if p.noteAdd {
		s += ", drift anchor added"
	}
	return s + ")"
}

// droppedSkills counts the skills the old cache holds rows of that are no
// longer in the registry (the new cache has no rows for them).
func droppedSkills(old *embedcache.Cache, items []embedcache.DocText) int {
	current := map[string]bool{embedcache.AnchorSkill: true}
	for _, it := range items {
		current[it.Skill] = true
	}
	gone := map[string]bool{}
	old.Retain(func(skill, field, sha string) bool { // keeps every row: a read-only walk
		if !current[skill] {
			gone[skill] = true
		}
		return true
	})
	return len(gone)
}

// embedChunk is how many texts a progress step embeds; the model batches
// inside (an ONNX model runs length-sorted batches of 32), so this only
// sets how often the bar moves.
const embedChunk = 64

// embedWithProgress embeds texts chunk by chunk behind a progress bar (on
// a terminal, for more than one chunk of work).
func embedWithProgress(w io.Writer, emb embedcache.Embedder, items []embedcache.DocText) ([][]float32, error) {
	return embedChunks(emb, items, newEmbedBar(w, len(items), isTTY(w)))
}

func embedChunks(emb embedcache.Embedder, items []embedcache.DocText, progress func(done int)) ([][]float32, error) {
	out := make([][]float32, 0, len(items))
	for lo := 0; lo < len(items); lo += embedChunk {
		hi := min(lo+embedChunk, len(items))
		vecs, err := embedcache.EmbedDocs(emb, nil, items[lo:hi])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
		progress(hi)
	}
	return out, nil
}

// newEmbedBar returns the bar's update function; a no-op off a terminal.
func newEmbedBar(w io.Writer, total int, tty bool) func(int) {
	if !tty || total <= embedChunk {
		return func(int) {}
	}
	bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("embedding"), progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
	return func(done int) { bar.Set(done) }
}
