package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/megagit/megagit/route/dense"
)

// ErrCacheDiffers is a committed embedding cache whose working copy
// differs from the commit that already holds the current vectors (corrupt,
// or edited): a commit does not fix it.
var ErrCacheDiffers = errors.New("the working copy differs from the last commit")

// EmbedTexts are the texts routing embeds for the registry's skills now;
// problems are the skills that do not parse (left out).
func (w *Workspace) EmbedTexts() (items []embedcache.DocText, problems []error, err error) {
	docs, problems, err := w.Docs()
	if err != nil {
		return nil, problems, err
	}
	return dense.EmbedItems(docs), problems, nil
}

// PlanEmbed is what `megagit embed` computes with emb: the texts whose
// vectors the committed cache lacks or holds stale (every text when all).
func (w *Workspace) PlanEmbed(emb models.Embedder, all bool, warn func(string)) (*embedcache.Plan, []error, error) {
	items, problems, err := w.EmbedTexts()
	if err != nil {
		return nil, problems, err
	}
	p, err := embedcache.NewPlan(emb, w.Reg.Root(), items, all, warn)
	return p, problems, err
}

// CommitEmbeddings records the plan's cache files (of model id) in a
// commit of their own: the zero hash when the last commit holds them
// already. A working copy that differs from that commit is
// registry.ErrDirty and ErrCacheDiffers.
func (w *Workspace) CommitEmbeddings(p *embedcache.Plan, id string, files map[string][]byte) (gitstore.Hash, error) {
	msg := fmt.Sprintf("embeddings(%s): %s\n\nMegagit-Action: embed\nMegagit-Model: %s\n", id, p.Summary(), id)
	hash, err := w.Reg.CommitFiles(msg, files)
	if err != nil || !hash.IsZero() {
		return hash, err
	}
	if st, err := w.Reg.HeadState(p.Rel, "index.json", "vectors.npy"); err == nil && st == registry.PathModified {
		return hash, fmt.Errorf("%w in %s: %w (corrupt or edited), which already holds the current vectors; nothing to commit", registry.ErrDirty, p.Rel, ErrCacheDiffers)
	}
	return hash, nil
}

// CacheStatus is `megagit cache status`: the committed and local caches
// against emb (nil: lexical routing) and the skills' texts now; problems
// are the skills that do not parse.
func (w *Workspace) CacheStatus(emb models.Embedder) (*embedcache.Report, []error, error) {
	in := embedcache.StatusInput{Root: w.Reg.Root(), LocalDir: w.Reg.LocalDir(), Embedder: emb, ModelID: w.Cfg.Model.ID,
		HeadState: func(dir string, names ...string) (untracked, modified bool) {
			state, err := w.Reg.HeadState(dir, names...)
			return err == nil && state == registry.PathUntracked, err == nil && state == registry.PathModified
		}}
	var problems []error
	if emb != nil {
		var err error
		if in.Items, problems, err = w.EmbedTexts(); err != nil {
			return nil, problems, err
		}
	}
	return embedcache.Status(in), problems, nil
}

// CacheCoverage is how much of what routing embeds the committed cache of
// emb holds; false when there is no such cache or the skills cannot be
// read (other checks say why).
func (w *Workspace) CacheCoverage(emb models.Embedder) (embedcache.Coverage, bool) {
	items, _, err := w.EmbedTexts() // the skills that do not parse: lint's check
	if err != nil {
		return embedcache.Coverage{}, false
	}
	return embedcache.CommittedCoverage(w.Reg.Root(), emb, items)
}

// CommittedCaches checks each committed embedding cache: index.json reads
// and names the vectors.npy it was written with, and the array reads.
func (w *Workspace) CommittedCaches() []embedcache.DirCheck {
	return embedcache.CheckCommitted(w.Reg.Root())
}

// BuiltinKey is the vectors' key of the active built-in model ("" for any
// other model, or none): a compiled index holding another's is rebuilt by
// the next refresh, e.g. after an upgrade changed the default.
func (w *Workspace) BuiltinKey() string {
	if w.Cfg.Model.Dir != "" || !models.IsBuiltin(dense.ModelID(w.Cfg)) {
		return ""
	}
	m, err := models.BuiltinModel(dense.ModelID(w.Cfg))
	if err != nil {
		return ""
	}
	return embedcache.CacheKey(m)
}

// Sync is `megagit sync` (regsync.Sync) with embedding caches changed on
// both sides merged row by row.
func (w *Workspace) Sync(ctx context.Context, opts regsync.Options) (*regsync.Result, error) {
	opts.MergeFiles = embedcache.Merge3
	return regsync.Sync(ctx, w.Reg, opts)
}
