package regsync

import (
	"bytes"
	"path"
	"sort"
	"strings"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/skillfile"
)

// FileMerger merges the files of one generated-data folder (an embedding
// cache: .megagit/embeddings/<model>) changed on both sides of a sync. The
// maps go from file name inside dir to its bytes; a missing name is a
// missing file. It returns the merged files (a nil value deletes the file).
// workspace.Sync supplies it (embedcache.Merge3): regsync does not read
// caches.
type FileMerger func(dir string, base, ours, theirs map[string][]byte) (map[string][]byte, error)

// treeEntry is one file of a flattened tree.
type treeEntry struct {
	hash gitstore.Hash
	mode gitstore.Mode
}

// flatTree lists every file of a tree by git path; nil gives an empty map.
func flatTree(t *gitstore.Tree) (map[string]treeEntry, error) {
	out := map[string]treeEntry{}
	if t == nil {
		return out, nil
	}
	err := t.Walk(func(name string, e gitstore.Entry) error {
		if e.Mode != gitstore.Dir {
			out[name] = treeEntry{hash: e.Hash, mode: e.Mode}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// mergePlan is what a sync would do to the local branch: the changes to
// write over our tree, the paths in real conflict, and a per-skill report.
type mergePlan struct {
	changes   []registry.Change
	conflicts []string
	links     []string // symlinks or submodules the other side added or changed: never written
	local     []string // files under .megagit/local/ the other side added, changed or removed: never taken
	oursLocal []string // files under .megagit/local/ our side tracks: never pushed
	skills    map[string]*SkillSync
}

// side is one of the three trees of a merge, flattened.
type side struct {
	files map[string]treeEntry
}

func (s side) has(p string) bool { _, ok := s.files[p]; return ok }

// planMerge computes the three-way merge of ours and theirs over base. Paths
// changed on one side are taken from it; ledgers changed on both sides are
// merged by verdict id; SKILL.md files changed on both sides keep the side
// whose text (outside mega_meta) changed, and every skill whose ledger or
// file was merged gets its mega_meta recomputed from the merged ledger;
// embedding caches go to merger. Anything else changed differently on both
// sides is a conflict. Nothing is written.
func (r reg) planMerge(base, ours, theirs *gitstore.Tree, merger FileMerger) (*mergePlan, error) {
	var b, o, t side
	var err error
	if b.files, err = flatTree(base); err != nil {
		return nil, err
	}
	if o.files, err = flatTree(ours); err != nil {
		return nil, err
	}
	if t.files, err = flatTree(theirs); err != nil {
		return nil, err
	}
	plan := &mergePlan{skills: map[string]*SkillSync{}}
	all := map[string]bool{}
	for _, s := range []side{b, o, t} {
		for p := range s.files {
			all[p] = true
		}
	}
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for p := range o.files {
		if rel := r.RelPath(p); registry.IsLocalPath(rel) {
			plan.oursLocal = append(plan.oursLocal, rel)
		}
	}
	sort.Strings(plan.oursLocal)
	m := &merger3{r: r, b: b, o: o, t: t, plan: plan, caches: map[string]bool{}, recompute: map[string]bool{}, fileMerger: merger}
	for _, p := range paths {
		if err := m.path(p); err != nil {
			return nil, err
		}
	}
	if err := m.mergeCaches(); err != nil {
		return nil, err
	}
	if err := m.recomputeSkills(); err != nil {
		return nil, err
	}
	if err := m.report(paths); err != nil {
		return nil, err
	}
	sort.Strings(plan.conflicts)
	for _, c := range m.out {
		plan.changes = append(plan.changes, c)
	}
	sort.Slice(plan.changes, func(i, j int) bool { return plan.changes[i].Path < plan.changes[j].Path })
	return plan, nil
}

// merger3 carries one planMerge.
type merger3 struct {
	r          reg
	b, o, t    side
	plan       *mergePlan
	fileMerger FileMerger
	caches     map[string]bool            // embedding cache folders changed on both sides
	recompute  map[string]bool            // skills whose mega_meta must be rebuilt
	out        map[string]registry.Change // git path -> what to write over ours
}

func (m *merger3) set(gitPath string, data []byte, del bool) {
	if m.out == nil {
		m.out = map[string]registry.Change{}
	}
	m.out[gitPath] = registry.Change{Path: m.r.RelPath(gitPath), Data: data, Delete: del}
}

// final returns a path's merged content: what the merge writes, else ours.
func (m *merger3) final(gitPath string) ([]byte, bool, error) {
	if c, ok := m.out[gitPath]; ok {
		return c.Data, !c.Delete, nil
	}
	return m.r.content(m.o, gitPath)
}

func (m *merger3) conflict(gitPath string) { m.plan.conflicts = append(m.plan.conflicts, gitPath) }

// path merges one path.
func (m *merger3) path(p string) error {
	be, inB := m.b.files[p]
	oe, inO := m.o.files[p]
	te, inT := m.t.files[p]
	oursCh := inO != inB || oe != be
	theirsCh := inT != inB || te != be
	if !theirsCh || (inO == inT && oe == te) {
		return nil
	}
	if registry.IsLocalPath(m.r.RelPath(p)) {
		// Each machine's own state (decisions, sessions, its config)
		// never comes from a teammate, nor is it deleted by one.
		m.plan.local = append(m.plan.local, m.r.RelPath(p))
		return nil
	}
	if inT && te.mode != gitstore.Regular && te.mode != gitstore.Executable {
		// A symlink or submodule from a teammate is never written: it
		// could point anywhere on this machine.
		m.plan.links = append(m.plan.links, p)
		return nil
	}
	if !oursCh {
		if !inT {
			m.set(p, nil, true)
			return nil
		}
		data, err := m.r.blob(te.hash)
		if err != nil {
			return err
		}
		if m.r.RelPath(p) == skillslock.File {
			// A teammate's lock may hold a source's token (edited by
			// hand): taken without it.
			data, _ = skillslock.StripSecrets(data)
		}
		m.set(p, data, false)
		c := m.out[p]
		c.Mode = te.mode // theirs as a whole: its executable bit too
		m.out[p] = c
		return nil
	}
	rel := m.r.RelPath(p)
	switch {
	case strings.HasPrefix(rel, local.LedgerDir+"/") && strings.HasSuffix(rel, ".jsonl"):
		return m.ledger(p, rel)
	case strings.HasPrefix(rel, registry.EmbeddingsDir+"/") && strings.Count(strings.TrimPrefix(rel, registry.EmbeddingsDir+"/"), "/") == 1:
		m.caches[path.Dir(p)] = true
		return nil
	case m.r.isSkillFile(rel) && inO && inT:
		return m.skillFile(p, rel)
	case rel == skillslock.File:
		return m.lockFile(p)
	}
	m.conflict(p)
	return nil
}

// sides reads path p at the merge base, ours and theirs (and whether the
// base has it).
func (m *merger3) sides(p string) (base []byte, inBase bool, ours, theirs []byte, err error) {
	if base, inBase, err = m.r.content(m.b, p); err != nil {
		return
	}
	if ours, _, err = m.r.content(m.o, p); err != nil {
		return
	}
	theirs, _, err = m.r.content(m.t, p)
	return
}

// ledger merges a ledger changed on both sides by verdict id.
func (m *merger3) ledger(p, rel string) error {
	base, _, ours, theirs, err := m.sides(p)
	if err != nil {
		return err
	}
	merged, problems := ledger.Merge(rel, base, ours, theirs)
	for _, pr := range problems {
		m.r.warn("%s: %s", rel, pr)
	}
	m.set(p, merged, false)
	m.recompute[m.r.skillOf(rel)] = true
	return nil
}

// lockFile merges the installed skills' lock changed on both sides, entry
// by skill name (skillslock.Merge); a side that does not read is a
// conflict.
func (m *merger3) lockFile(p string) error {
	base, _, ours, theirs, err := m.sides(p)
	if err != nil {
		return err
	}
	var locks [3]skillslock.Lock
	for i, data := range [][]byte{base, ours, theirs} {
		if locks[i], err = skillslock.Parse(data); err != nil {
			m.conflict(p)
			return nil
		}
	}
	m.set(p, skillslock.Merge(locks[0], locks[1], locks[2]).Format(), false)
	return nil
}

// skillFile merges a SKILL.md changed on both sides: the text outside
// mega_meta may change on one side only; mega_meta is recomputed later.
func (m *merger3) skillFile(p, rel string) error {
	base, inB, ours, theirs, err := m.sides(p)
	if err != nil {
		return err
	}
	nb, nbOK := normalizedSkill(rel, base)
	no, noOK := normalizedSkill(rel, ours)
	nt, ntOK := normalizedSkill(rel, theirs)
	if !noOK || !ntOK {
		m.conflict(p)
		return nil
	}
	switch {
	case bytes.Equal(no, nt), inB && nbOK && bytes.Equal(nt, nb):
		m.set(p, ours, false)
	case inB && nbOK && bytes.Equal(no, nb):
		m.set(p, theirs, false)
	default:
		m.conflict(p)
		return nil
	}
	m.recompute[m.r.skillOf(rel)] = true
	return nil
}

// normalizedSkill renders a SKILL.md with a fixed mega_meta, so two copies
// compare equal exactly when they differ only in evidence.
func normalizedSkill(rel string, data []byte) ([]byte, bool) {
	if data == nil {
		return nil, true
	}
	f, err := skillfile.Parse(rel, data)
	if err != nil {
		return nil, false
	}
	out, err := f.WithEvidence(coldEvidence())
	return out, err == nil
}
