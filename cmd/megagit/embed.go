package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

type embedOptions struct {
	app     *app
	all     bool
	float16 bool
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
first and keep vectors they had to compute in .megagit/local/.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error { return embedRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.all, "all", false, "recompute every vector, not only the changed ones")
	cmd.Flags().BoolVar(&opts.float16, "float16", false, "store float16 vectors (half the size) instead of float32")
	return cmd
}

// embedItems are the texts routing embeds per skill, keyed as newSemantic
// keys them, so route finds every vector embed committed.
func embedItems(docs []ranker.Doc) []embedcache.DocText {
	items := make([]embedcache.DocText, 0, 2*len(docs))
	for _, d := range docs {
		full, name := docTexts(d)
		items = append(items, embedcache.DocText{Skill: d.ID, Field: "full", Text: full}, embedcache.DocText{Skill: d.ID, Field: "name", Text: name})
	}
	return items
}

func embedRun(opts *embedOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	emb, _, err := loadEmbedder(e.cfg, e.reg.Root())
	if errors.Is(err, embedcache.ErrNoBuiltin) {
		return withHint(err, "point model.dir at a static model folder: megagit model use --dir DIR")
	}
	if err != nil {
		return err
	}
	if emb == nil {
		return withHint(fmt.Errorf("%w: no semantic model is active (model.id is %q), nothing to embed", config.ErrInvalid, e.cfg.Model.ID),
			"choose one with `megagit model use "+embedcache.BuiltinID+"` or `megagit model use --dir DIR`")
	}
	skills, problems, err := e.reg.Skills()
	if err != nil {
		return err
	}
	warnProblems(a, problems)
	ledgers, err := e.reg.Ledgers()
	if err != nil {
		return err
	}
	items := embedItems(skillDocs(skills, ledgers))

	// Read the committed cache in place, build the new one in a temp folder:
	// the committed files must stay as HEAD has them until the commit
	// writes the new ones. Rows follow the skills' order, so the files
	// depend only on the skills and the model, not on the edit history.
	dir := embedcache.CacheDir(e.reg.Root(), emb.ID())
	rel, err := filepath.Rel(e.reg.Root(), dir)
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	warn := func(msg string) { fmt.Fprintf(a.errOut, "megagit: warning: %s\n", msg) }
	var old *embedcache.Cache
	if !opts.all {
		old = embedcache.OpenCache(dir, embedcache.CacheKey(emb), emb.Dim(), warn)
	}
	vecs := make([][]float32, len(items))
	var todo []embedcache.DocText
	var todoAt []int
	changed := map[string]bool{}
	for i, it := range items {
		if old != nil {
			if v, ok := old.Get(embedcache.TextSHA(it.Text)); ok {
				vecs[i] = v
				continue
			}
		}
		todo, todoAt = append(todo, it), append(todoAt, i)
		changed[it.Skill] = true
	}
	computed, err := embedWithProgress(a.errOut, emb, todo)
	if err != nil {
		return err
	}
	for k, i := range todoAt {
		vecs[i] = computed[k]
	}
	tmp, err := os.MkdirTemp("", "megagit-embed-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c := embedcache.OpenCache(tmp, embedcache.CacheKey(emb), emb.Dim(), warn)
	for i, it := range items {
		c.Put(it.Skill, it.Field, embedcache.TextSHA(it.Text), vecs[i])
	}
	if err := c.Save(opts.float16); err != nil {
		return err
	}
	files := map[string][]byte{}
	for _, name := range []string{"vectors.npy", "index.json"} {
		data, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			return err
		}
		files[rel+"/"+name] = data
	}
	nSkills := len(items) / 2
	summary := fmt.Sprintf("embedded %d, kept %d skills with %s (%d of %d texts computed",
		len(changed), nSkills-len(changed), emb.ID(), len(todo), len(items))
	if n := droppedSkills(old, items); n > 0 {
		summary += fmt.Sprintf(", %d deleted skill(s) dropped", n)
	}
	summary += ")"
	msg := fmt.Sprintf("embeddings(%s): %s\n\nMegagit-Action: embed\nMegagit-Model: %s\n", emb.ID(), summary, emb.ID())
	hash, err := e.reg.CommitFiles(msg, files)
	if errors.Is(err, registry.ErrDirty) {
		return withHint(err, "megagit embed rewrites "+rel+"/; restore it with `git checkout -- "+rel+"` or commit your change first")
	}
	if err != nil {
		return err
	}
	if hash.IsZero() {
		fmt.Fprintf(a.errOut, "megagit: %s up to date (%d skills); nothing to commit\n", rel, nSkills)
		return nil
	}
	fmt.Fprintf(a.errOut, "megagit: %s; committed %s (commit %s)\n", summary, rel, hash.String()[:12])
	return nil
}

// droppedSkills counts the skills the old cache holds rows of that are no
// longer in the registry (the new cache has no rows for them).
func droppedSkills(old *embedcache.Cache, items []embedcache.DocText) int {
	if old == nil {
		return 0
	}
	current := map[string]bool{}
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

// embedWithProgress embeds texts in chunks so a bar can move; the bar
// shows only on a terminal and only for enough work to notice.
func embedWithProgress(w io.Writer, emb embedcache.Embedder, items []embedcache.DocText) ([][]float32, error) {
	const chunk = 256
	var bar *progressbar.ProgressBar
	if len(items) > 200 && isTTY(w) {
		bar = progressbar.NewOptions(len(items), progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("embedding"), progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
	}
	out := make([][]float32, 0, len(items))
	for lo := 0; lo < len(items); lo += chunk {
		hi := min(lo+chunk, len(items))
		vecs, err := embedcache.EmbedDocs(emb, nil, items[lo:hi])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
		if bar != nil {
			bar.Set(hi)
		}
	}
	return out, nil
}
