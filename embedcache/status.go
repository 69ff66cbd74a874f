package embedcache

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/megagit/megagit/models"
)

// Report is what `megagit cache status|verify` prints (its JSON shape is
// the command's --json output).
type Report struct {
	Model    string       `json:"model"` // the active model's cache key; "" when routing is lexical
	Dim      int          `json:"dim"`
	Caches   []CacheState `json:"caches"` // committed, then local, then other models' folders
	Problems []Problem    `json:"problems"`
	Notes    []string     `json:"notes"`
}

// CacheState is one cache folder against the active model and skills.
type CacheState struct {
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
	Anchor    string   `json:"anchor"` // ok | drifted | stale | none | unchecked
	Cosine    *float64 `json:"anchor_cosine,omitempty"`
	// older: index.json is of an older megagit's format, with one row per
	// skill and field (see cacheIndex).
	older bool
}

// Problem is one reason verify fails, and the command that fixes it.
type Problem struct {
	Cache   string `json:"cache"`
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
}

// Integrity verdicts of a cache folder.
const (
	IntegrityOK         = "ok"
	IntegrityAbsent     = "absent"
	IntegrityCorrupt    = "corrupt"
	IntegrityOtherModel = "other-model"
)

// StatusInput is what Status needs to know besides the folders on disk.
type StatusInput struct {
	Root     string          // the registry's root
	LocalDir string          // the registry's local (gitignored) folder
	Embedder models.Embedder // the active model; nil when routing is lexical
	ModelID  string          // model.id as configured, named when no model is active
	Items    []DocText       // the texts routing embeds now (unused when Embedder is nil)
	// HeadState says how a registry-relative folder's named files compare
	// with HEAD's commit (untracked: a file is not in HEAD; modified: one
	// differs), so a fix can restore them first. Both false when git can
	// restore nothing, e.g. for a folder outside the registry.
	HeadState func(dir string, names ...string) (untracked, modified bool)
}

// Status reads the committed and local caches of the active model and the
// committed folders of other models, and says what is wrong with them and
// which command fixes it.
func Status(in StatusInput) *Report {
	r := &Report{Caches: []CacheState{}, Problems: []Problem{}, Notes: []string{}}
	active := ""
	if in.Embedder == nil {
		r.Notes = append(r.Notes, fmt.Sprintf("no semantic model is active (model.id is %q): routing is lexical and reads no cache", in.ModelID))
	} else {
		emb := in.Embedder
		r.Model, r.Dim = CacheKey(emb), emb.Dim()
		committed := CacheDir(in.Root, emb.ID())
		active = filepath.Base(committed)
		local := filepath.Join(in.LocalDir, "embeddings", active)
		c := inspectCache("committed", in.Root, committed, emb, in.Items)
		l := inspectCache("local", in.Root, local, emb, in.Items)
		r.Caches = append(r.Caches, c, l)
		r.judgeCommitted(c, in.HeadState)
		r.judgeLocal(l)
	}
	r.addOthers(in.Root, active)
	return r
}

// inspectCache reads one folder and compares it with the active model and
// the skills' current texts.
func inspectCache(kind, root, dir string, emb models.Embedder, items []DocText) CacheState {
	ins := Inspect(dir)
	st := CacheState{Kind: kind, Dir: relSlash(root, dir), Model: ins.Model, Dtype: ins.Dtype, Dim: ins.Dim,
		Stale: []string{}, Missing: []string{}, Orphans: []string{}, Anchor: "unchecked"}
	for _, row := range ins.Rows {
		if row.Skill != AnchorSkill {
			st.Rows++
		}
	}
	key := CacheKey(emb)
	switch {
	case !ins.Present:
		st.Integrity = IntegrityAbsent
	case ins.Err != nil:
		st.Integrity, st.Error = IntegrityCorrupt, ins.Err.Error()
	case ins.Model != key || ins.Dim != emb.Dim():
		st.Integrity = IntegrityOtherModel
		st.Error = fmt.Sprintf("written by %s (dim %d), the active model is %s (dim %d)", ins.Model, ins.Dim, key, emb.Dim())
	default:
		st.Integrity = IntegrityOK
	}
	if st.Integrity != IntegrityOK {
		return st
	}
	st.older = ins.Format < FormatRows
	cov := Compare(ins.Rows, items)
	st.Skills, st.Stale, st.Missing, st.Orphans = cov.Skills, cov.Stale, cov.Missing, cov.Orphans
	if ins.AnchorStale {
		st.Anchor = "stale"
		return st
	}
	if ins.Anchor == nil {
		st.Anchor = "none"
		return st
	}
	d, err := CheckDrift(emb, ins.Anchor)
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

func (r *Report) problem(st CacheState, fix, format string, args ...any) {
	r.Problems = append(r.Problems, Problem{Cache: st.Kind, Problem: fmt.Sprintf(format, args...), Fix: fix})
}

func (r *Report) judgeCommitted(st CacheState, headState func(string, ...string) (bool, bool)) {
	if st.Integrity == IntegrityAbsent {
		r.Notes = append(r.Notes, "no committed cache: routing embeds skills into the local cache; `megagit embed` shares the vectors through git")
		return
	}
	fix := restoreFirst(headState, st.Dir)
	switch st.Integrity {
	case IntegrityCorrupt:
		r.problem(st, fix("megagit embed --all"), "%s is corrupt (%s); routing ignores it", st.Dir, st.Error)
		return
	case IntegrityOtherModel:
		r.problem(st, fix("megagit embed"), "%s was %s; routing ignores its rows", st.Dir, st.Error)
		return
	}
	if st.Anchor == "drifted" {
		r.problem(st, fix("megagit embed --all"), "%s drifted: the anchor's cosine with %s is %.2f (< %.2f): this cache must be rebuilt",
			st.Dir, r.Model, *st.Cosine, DriftThreshold)
	}
	if st.Anchor == "stale" {
		r.problem(st, fix("megagit embed"), "%s: the %s row's text hash is not the drift anchor's (edited, or written by another megagit), so its drift goes unchecked",
			st.Dir, AnchorSkill)
	}
	if st.older && len(st.Stale)+len(st.Missing) > 0 {
		n := len(st.Stale) + len(st.Missing)
		r.problem(st, fix("megagit embed"), "%s was written by an older megagit, which kept one row per skill and field "+
			"(a second helpful context replaced the first): %d skill(s) lack rows: %s", st.Dir, n, strings.Join(slices.Sorted(slices.Values(append(slices.Clone(st.Stale), st.Missing...))), ", "))
	} else {
		if n := len(st.Stale); n > 0 {
			r.problem(st, fix("megagit embed"), "%d skill(s) changed since the last embed: %s", n, strings.Join(st.Stale, ", "))
		}
		if n := len(st.Missing); n > 0 {
			r.problem(st, fix("megagit embed"), "%d skill(s) not embedded yet: %s", n, strings.Join(st.Missing, ", "))
		}
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
func (r *Report) judgeLocal(st CacheState) {
	fix := "rm -r " + st.Dir
	switch {
	case st.Integrity == IntegrityCorrupt:
		r.problem(st, fix, "%s is corrupt (%s); routing warns and ignores it", st.Dir, st.Error)
	case st.Integrity == IntegrityOtherModel:
		r.Notes = append(r.Notes, st.Dir+" was "+st.Error+"; routing ignores it and rewrites it when it next computes a vector")
	case st.Anchor == "drifted":
		r.problem(st, fix, "%s drifted: the anchor's cosine with %s is %.2f (< %.2f): this cache must be rebuilt",
			st.Dir, r.Model, *st.Cosine, DriftThreshold)
	case st.Anchor == "stale":
		r.Notes = append(r.Notes, st.Dir+": the "+AnchorSkill+" row's text hash is not the drift anchor's; routing writes a new anchor when it next computes a vector")
	case st.Anchor == "none" && st.Rows > 0:
		r.Notes = append(r.Notes, st.Dir+": no anchor; routing adds one when it next computes a vector")
	}
}

// addOthers lists the committed folders of models other than the active one.
func (r *Report) addOthers(root, active string) {
	var names []string
	for _, d := range committedDirs(root) {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() || filepath.Base(d) == active {
			continue
		}
		ins := Inspect(d)
		st := CacheState{Kind: "other-model", Dir: relSlash(root, d), Integrity: IntegrityOK, Model: ins.Model, Dtype: ins.Dtype,
			Dim: ins.Dim, Rows: len(ins.Rows), Stale: []string{}, Missing: []string{}, Orphans: []string{}, Anchor: "unchecked"}
		if ins.Err != nil || !ins.Present {
			st.Integrity, st.Error = IntegrityCorrupt, fmt.Sprint(ins.Err)
		}
		r.Caches = append(r.Caches, st)
		names = append(names, st.Dir)
	}
	if len(names) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("routing ignores the rows of other models (%s); `git rm -r` a folder you no longer need",
			strings.Join(names, ", ")))
	}
}

// committedDirs lists what the registry's .megagit/embeddings/ holds: one
// folder per model (anything else is listed too, for the callers to judge).
func committedDirs(root string) []string {
	dirs, _ := filepath.Glob(filepath.Join(embeddingsDir(root), "*"))
	return dirs
}

// DirCheck is the integrity of one committed cache folder, for doctor.
type DirCheck struct {
	Name string // the folder's name under .megagit/embeddings/
	Err  error  // nil when index.json matches vectors.npy
}

// CheckCommitted is the integrity part of `megagit cache verify` for every
// model's committed folder; nil when none is committed.
func CheckCommitted(root string) []DirCheck {
	var out []DirCheck
	for _, d := range committedDirs(root) {
		c := DirCheck{Name: filepath.Base(d)}
		if ins := Inspect(d); !ins.Present {
			c.Err = fmt.Errorf("index.json is missing")
		} else {
			c.Err = ins.Err
		}
		out = append(out, c)
	}
	return out
}

// restoreFirst prefixes a fix with what makes the folder's files HEAD's
// again: embed commits only the files it changes and refuses to overwrite
// an uncommitted edit, so a hand-damaged file must be restored first.
func restoreFirst(headState func(string, ...string) (bool, bool), rel string) func(string) string {
	prefix := ""
	untracked, modified := headState(rel, "index.json", "vectors.npy")
	switch {
	case untracked:
		prefix = "rm -r " + rel + " && "
	case modified:
		prefix = "git checkout -- " + rel + " && "
	}
	return func(cmd string) string { return prefix + cmd }
}

func relSlash(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// CommittedCoverage is how the committed cache of emb under root covers
// items, for doctor; ok is false when there is no cache of emb to compare
// (none committed, corrupt, or another build's), which CheckCommitted and
// `megagit cache verify` report.
func CommittedCoverage(root string, emb models.Embedder, items []DocText) (cov Coverage, ok bool) {
	ins := Inspect(CacheDir(root, emb.ID()))
	if !ins.Present || ins.Err != nil || ins.Model != CacheKey(emb) || ins.Dim != emb.Dim() {
		return Coverage{}, false
	}
	return Compare(ins.Rows, items), true
}
