package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/registry"
	"github.com/spf13/cobra"
)

type cacheOptions struct {
	app    *app
	json   bool
	verify bool // exit with the problems code when a cache needs work
}

func newCacheCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "Inspect the embedding caches of the active model: status, verify",
		Long: `Routing reads the committed cache .megagit/embeddings/<model>/ first, then
the local one .megagit/local/embeddings/<model>/ (vectors computed on this
machine only). status shows both, and other models' folders, which routing
ignores. verify checks the same and exits 10 when a cache is corrupt, was
written by another build of the model (the drift anchor moved), or lags
behind the skills, saying what to run.`,
	}
	cmd.AddCommand(newCacheStatusCmd(a, nil), newCacheVerifyCmd(a, nil))
	return cmd
}

// newCacheStatusCmd parses `megagit cache status` into options and hands
// them to runF, or to cacheRun when runF is nil (tests pass a stub).
func newCacheStatusCmd(a *app, runF func(*cacheOptions) error) *cobra.Command {
	return newCacheSubCmd(a, "status", "Show the embedding caches: rows, stale and missing skills, integrity", false, runF)
}

// newCacheVerifyCmd is newCacheStatusCmd that fails on a problem.
func newCacheVerifyCmd(a *app, runF func(*cacheOptions) error) *cobra.Command {
	return newCacheSubCmd(a, "verify", "Check integrity and model drift of the embedding caches; exit 10 on a problem", true, runF)
}

func newCacheSubCmd(a *app, verb, short string, verify bool, runF func(*cacheOptions) error) *cobra.Command {
	opts := &cacheOptions{app: a, verify: verify}
	cmd := &cobra.Command{
		Use:   verb + " [--json]",
		Short: short,
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return cacheRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the report as JSON")
	return cmd
}

// cacheReport is what status and verify print.
type cacheReport struct {
	Model    string         `json:"model"` // the active model's cache key; "" when routing is lexical
	Dim      int            `json:"dim"`
	Caches   []cacheState   `json:"caches"` // committed, then local, then other models' folders
	Problems []cacheProblem `json:"problems"`
	Notes    []string       `json:"notes"`
}

// cacheState is one cache folder against the active model and skills.
type cacheState struct {
	Kind      string   `json:"kind"` // committed | local | other-model
	Dir       string   `json:"dir"`  // registry-relative
	Integrity string   `json:"integrity"`
	Error     string   `json:"error,omitempty"`
	Model     string   `json:"model,omitempty"`
	Dtype     string   `json:"dtype,omitempty"`
	Dim       int      `json:"dim,omitempty"`
	Rows      int      `json:"rows"`   // skill rows (the anchor's not counted)
	Skills    int      `json:"skills"` // skills whose every text has an up-to-date row
	Stale     []string `json:"stale"`
	Missing   []string `json:"missing"`
	Orphans   []string `json:"orphans"`
	Anchor    string   `json:"anchor"` // ok | drifted | none | unchecked
	Cosine    *float64 `json:"anchor_cosine,omitempty"`
}

// cacheProblem is one reason verify fails, and the command that fixes it.
type cacheProblem struct {
	Cache   string `json:"cache"`
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
}

// Integrity verdicts of a cache folder.
const (
	cacheOK         = "ok"
	cacheAbsent     = "absent"
	cacheCorrupt    = "corrupt"
	cacheOtherModel = "other-model"
)

func cacheRun(opts *cacheOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	r, err := buildCacheReport(a, e)
	if err != nil {
		return err
	}
	if opts.json {
		err = printJSON(a.out, r)
	} else {
		err = printCacheReport(a, r)
	}
	if err != nil || !opts.verify {
		return err
	}
	if len(r.Problems) == 0 {
		fmt.Fprintln(a.errOut, "megagit: embedding caches ok")
		return nil
	}
	var hints []string
	for _, p := range r.Problems {
		if h := "run `" + p.Fix + "`"; !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	return withHint(fmt.Errorf("%w: %d embedding cache problem(s)", errProblems, len(r.Problems)), hints...)
}

func buildCacheReport(a *app, e *env) (*cacheReport, error) {
	emb, err := activeEmbedder(e)
	if err != nil {
		return nil, err
	}
	root := e.reg.Root()
	r := &cacheReport{Caches: []cacheState{}, Problems: []cacheProblem{}, Notes: []string{}}
	active := ""
	if emb == nil {
		r.Notes = append(r.Notes, fmt.Sprintf("no semantic model is active (model.id is %q): routing is lexical and reads no cache", e.cfg.Model.ID))
	} else {
		items, err := currentItems(a, e)
		if err != nil {
			return nil, err
		}
		r.Model, r.Dim = embedcache.CacheKey(emb), emb.Dim()
		committed := embedcache.CacheDir(root, emb.ID())
		active = filepath.Base(committed)
		local := filepath.Join(e.reg.LocalDir(), "embeddings", active)
		c := inspectCache("committed", root, committed, emb, items)
		l := inspectCache("local", root, local, emb, items)
		r.Caches = append(r.Caches, c, l)
		r.judgeCommitted(c, e.reg)
		r.judgeLocal(l)
	}
	r.addOthers(root, active)
	return r, nil
}

// inspectCache reads one folder and compares it with the active model and
// the skills' current texts.
func inspectCache(kind, root, dir string, emb embedcache.Embedder, items []embedcache.DocText) cacheState {
	ins := embedcache.Inspect(dir)
	st := cacheState{Kind: kind, Dir: relSlash(root, dir), Model: ins.Model, Dtype: ins.Dtype, Dim: ins.Dim,
		Stale: []string{}, Missing: []string{}, Orphans: []string{}, Anchor: "unchecked"}
	for _, row := range ins.Rows {
		if row.Skill != embedcache.AnchorSkill {
			st.Rows++
		}
	}
	key := embedcache.CacheKey(emb)
	switch {
	case !ins.Present:
		st.Integrity = cacheAbsent
	case ins.Err != nil:
		st.Integrity, st.Error = cacheCorrupt, ins.Err.Error()
	case ins.Model != key || ins.Dim != emb.Dim():
		st.Integrity = cacheOtherModel
		st.Error = fmt.Sprintf("written by %s (dim %d), the active model is %s (dim %d)", ins.Model, ins.Dim, key, emb.Dim())
	default:
		st.Integrity = cacheOK
	}
	if st.Integrity != cacheOK {
		return st
	}
	cov := embedcache.Compare(ins.Rows, items)
	st.Skills, st.Stale, st.Missing, st.Orphans = cov.Skills, cov.Stale, cov.Missing, cov.Orphans
	if ins.Anchor == nil {
		st.Anchor = "none"
		return st
	}
	d, err := embedcache.CheckDrift(emb, ins.Anchor)
	switch {
	case err != nil:
		st.Error = err.Error() // Anchor stays "unchecked"
	case d.Drifted:
		st.Anchor, st.Cosine = "drifted", &d.Cosine
	default:
		st.Anchor, st.Cosine = "ok", &d.Cosine
	}
	return st
}

func (r *cacheReport) problem(st cacheState, fix, format string, args ...any) {
	r.Problems = append(r.Problems, cacheProblem{Cache: st.Kind, Problem: fmt.Sprintf(format, args...), Fix: fix})
}

func (r *cacheReport) judgeCommitted(st cacheState, reg *registry.Registry) {
	if st.Integrity == cacheAbsent {
		r.Notes = append(r.Notes, "no committed cache: routing embeds skills into the local cache; `megagit embed` shares the vectors through git")
		return
	}
	fix := restoreFirst(reg, st.Dir)
	switch st.Integrity {
	case cacheCorrupt:
		r.problem(st, fix("megagit embed --all"), "%s is corrupt (%s); routing ignores it", st.Dir, st.Error)
		return
	case cacheOtherModel:
		r.problem(st, fix("megagit embed"), "%s was %s; routing ignores its rows", st.Dir, st.Error)
		return
	}
	if st.Anchor == "drifted" {
		r.problem(st, fix("megagit embed --all"), "%s drifted: the anchor's cosine with %s is %.2f (< %.2f): this cache must be rebuilt",
			st.Dir, r.Model, *st.Cosine, embedcache.DriftThreshold)
	}
	if n := len(st.Stale); n > 0 {
		r.problem(st, fix("megagit embed"), "%d skill(s) changed since the last embed: %s", n, strings.Join(st.Stale, ", "))
	}
	if n := len(st.Missing); n > 0 {
		r.problem(st, fix("megagit embed"), "%d skill(s) not embedded yet: %s", n, strings.Join(st.Missing, ", "))
	}
	if n := len(st.Orphans); n > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%s holds rows of %d deleted skill(s) (%s): harmless; the next `megagit embed` drops them",
			st.Dir, n, strings.Join(st.Orphans, ", ")))
	}
	switch st.Anchor {
	case "none":
		r.Notes = append(r.Notes, st.Dir+": no anchor (written before drift anchors existed); the next `megagit embed` adds one")
	case "unchecked":
		r.Notes = append(r.Notes, st.Dir+": the drift anchor could not be checked: "+st.Error)
	}
}

// judgeLocal: the local cache is disposable (routing rebuilds it), so
// only what routing would wrongly use or warn about is a problem.
func (r *cacheReport) judgeLocal(st cacheState) {
	fix := "rm -r " + st.Dir
	switch {
	case st.Integrity == cacheCorrupt:
		r.problem(st, fix, "%s is corrupt (%s); routing warns and ignores it", st.Dir, st.Error)
	case st.Integrity == cacheOtherModel:
		r.Notes = append(r.Notes, st.Dir+" was "+st.Error+"; routing ignores it and rewrites it when it next computes a vector")
	case st.Anchor == "drifted":
		r.problem(st, fix, "%s drifted: the anchor's cosine with %s is %.2f (< %.2f): this cache must be rebuilt",
			st.Dir, r.Model, *st.Cosine, embedcache.DriftThreshold)
	case st.Anchor == "none" && st.Rows > 0:
		r.Notes = append(r.Notes, st.Dir+": no anchor; routing adds one when it next computes a vector")
	}
}

// addOthers lists the committed folders of models other than the active one.
func (r *cacheReport) addOthers(root, active string) {
	dirs, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(registry.EmbeddingsDir), "*"))
	var names []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() || filepath.Base(d) == active {
			continue
		}
		ins := embedcache.Inspect(d)
		st := cacheState{Kind: "other-model", Dir: relSlash(root, d), Integrity: cacheOK, Model: ins.Model, Dtype: ins.Dtype,
			Dim: ins.Dim, Rows: len(ins.Rows), Stale: []string{}, Missing: []string{}, Orphans: []string{}, Anchor: "unchecked"}
		if ins.Err != nil || !ins.Present {
			st.Integrity, st.Error = cacheCorrupt, fmt.Sprint(ins.Err)
		}
		r.Caches = append(r.Caches, st)
		names = append(names, st.Dir)
	}
	if len(names) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("routing ignores the rows of other models (%s); `git rm -r` a folder you no longer need",
			strings.Join(names, ", ")))
	}
}

// restoreFirst prefixes a fix with what makes the folder's files HEAD's
// again: embed commits only the files it changes and refuses to overwrite
// an uncommitted edit, so a hand-damaged file must be restored first.
func restoreFirst(reg *registry.Registry, rel string) func(string) string {
	prefix := ""
	state, err := reg.HeadState(rel, "index.json", "vectors.npy")
	switch {
	case err != nil: // not a registry folder: nothing git could restore
	case state == registry.PathUntracked:
		prefix = "rm -r " + rel + " && "
	case state == registry.PathModified:
		prefix = "git checkout -- " + rel + " && "
	}
	return func(cmd string) string { return prefix + cmd }
}

func printCacheReport(a *app, r *cacheReport) error {
	if r.Model != "" {
		fmt.Fprintf(a.out, "active model: %s (dim %d)\n", r.Model, r.Dim)
	}
	header := []string{"CACHE", "FOLDER", "INTEGRITY", "MODEL", "DTYPE", "DIM", "ROWS", "SKILLS", "STALE", "MISSING", "ORPHANS", "ANCHOR"}
	rows := make([][]string, 0, len(r.Caches))
	for _, c := range r.Caches {
		anchor := c.Anchor
		if c.Cosine != nil {
			anchor += fmt.Sprintf(" (%.3f)", *c.Cosine)
		}
		rows = append(rows, []string{c.Kind, c.Dir, c.Integrity, c.Model, c.Dtype, strconv.Itoa(c.Dim), strconv.Itoa(c.Rows),
			strconv.Itoa(c.Skills), strconv.Itoa(len(c.Stale)), strconv.Itoa(len(c.Missing)), strconv.Itoa(len(c.Orphans)), anchor})
	}
	if err := printTable(a.out, header, rows); err != nil {
		return err
	}
	for _, p := range r.Problems {
		fmt.Fprintf(a.out, "problem: %s: %s (fix: %s)\n", p.Cache, p.Problem, p.Fix)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(a.out, "note: %s\n", n)
	}
	return nil
}

func relSlash(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}
