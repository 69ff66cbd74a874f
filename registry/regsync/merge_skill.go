package regsync

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/safetext"
	"github.com/megagit/megagit/skillfile"
)

func coldEvidence() lifecycle.Evidence { return lifecycle.ColdStart() }

// skillFileGitPath finds the git path of a skill's SKILL.md in the merged
// view, trying the roots in order; "" when the skill has no file.
func (m *merger3) skillFileGitPath(name string) (string, error) {
	for _, root := range m.r.Options().Roots {
		gp := m.r.GitPath(path.Join(root, name, "SKILL.md"))
		if _, ok, err := m.final(gp); err != nil {
			return "", err
		} else if ok {
			return gp, nil
		}
	}
	return "", nil
}

// recomputeSkills rebuilds mega_meta of every skill whose ledger or
// SKILL.md was merged: counts, streak, status and weight by replaying the
// merged ledger in (at, id) order, contexts as mergeContexts decides.
func (m *merger3) recomputeSkills() error {
	names := make([]string, 0, len(m.recompute))
	for n := range m.recompute {
		if n != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		gp, err := m.skillFileGitPath(name)
		if err != nil {
			return err
		}
		if gp == "" || m.isConflict(gp) {
			continue
		}
		data, _, err := m.final(gp)
		if err != nil {
			return err
		}
		lp := m.r.GitPath(ledger.Path(name))
		lines, _, err := m.final(lp)
		if err != nil {
			return err
		}
		union, _ := ledger.Parse(ledger.Path(name), lines)
		rel := m.r.RelPath(gp)
		f, err := skillfile.Parse(rel, data)
		if err != nil {
			m.conflict(gp)
			continue
		}
		after := ledger.Replay(coldEvidence(), union)
		oursEv, oursEntries, err := m.sideEvidence(m.o, gp, lp)
		if err != nil {
			return err
		}
		theirsEv, theirsEntries, err := m.sideEvidence(m.t, gp, lp)
		if err != nil {
			return err
		}
		uHelp, uHarm := registry.DerivedContexts(union)
		oHelp, oHarm := registry.DerivedContexts(oursEntries)
		tHelp, tHarm := registry.DerivedContexts(theirsEntries)
		after.HelpfulContexts = mergeContexts(oursEv.HelpfulContexts, theirsEv.HelpfulContexts, oHelp, tHelp, uHelp)
		after.HarmfulContexts = mergeContexts(oursEv.HarmfulContexts, theirsEv.HarmfulContexts, oHarm, tHarm, uHarm)
		out, err := f.WithEvidence(after)
		if err != nil {
			return fmt.Errorf("merge %s: %w", rel, err)
		}
		if cur, _, err := m.r.content(m.o, gp); err != nil {
			return err
		} else if bytes.Equal(cur, out) {
			delete(m.out, gp)
			continue
		}
		m.set(gp, out, false)
	}
	return nil
}

func (m *merger3) isConflict(gp string) bool {
	for _, c := range m.plan.conflicts {
		if c == gp {
			return true
		}
	}
	return false
}

// sideEvidence reads one side's mega_meta and ledger entries for a skill.
func (m *merger3) sideEvidence(s side, skillGitPath, ledgerGitPath string) (lifecycle.Evidence, []ledger.Entry, error) {
	ev := coldEvidence()
	data, ok, err := m.r.content(s, skillGitPath)
	if err != nil {
		return ev, nil, err
	}
	if ok {
		if f, err := skillfile.Parse(skillGitPath, data); err == nil {
			if e, err := f.Evidence(); err == nil {
				ev = e
			}
		}
	}
	lines, _, err := m.r.content(s, ledgerGitPath)
	if err != nil {
		return ev, nil, err
	}
	entries, _ := ledger.Parse(ledgerGitPath, lines)
	return ev, entries, nil
}

// mergeContexts decides a merged skill's contexts. When both sides hold
// exactly the contexts their own ledger implies (nobody curated them by
// hand), the merge takes what the merged ledger implies: its last three.
// Otherwise hand edits win: our contexts, then theirs we lack, last three,
// each cleaned as a verdict's context is (a teammate's SKILL.md is not
// trusted to be).
func mergeContexts(ours, theirs, oursDerived, theirsDerived, unionDerived []string) []string {
	if equalStrings(ours, oursDerived) && equalStrings(theirs, theirsDerived) {
		return unionDerived
	}
	var out []string
	for _, c := range append(append([]string(nil), ours...), theirs...) {
		if c, _ = safetext.Context.Clean(c); c != "" && !containsString(out, c) {
			out = append(out, c)
		}
	}
	if len(out) > lifecycle.ContextCap {
		out = out[len(out)-lifecycle.ContextCap:]
	}
	return out
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// mergeCaches hands every embedding-cache folder changed on both sides to
// the FileMerger; without one (or when it fails) the folder is a conflict.
func (m *merger3) mergeCaches() error {
	dirs := make([]string, 0, len(m.caches))
	for d := range m.caches {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		files := func(s side) (map[string][]byte, error) {
			out := map[string][]byte{}
			for p := range s.files {
				if name, ok := strings.CutPrefix(p, dir+"/"); ok && !strings.Contains(name, "/") {
					data, _, err := m.r.content(s, p)
					if err != nil {
						return nil, err
					}
					out[name] = data
				}
			}
			return out, nil
		}
		b, err := files(m.b)
		if err != nil {
			return err
		}
		o, err := files(m.o)
		if err != nil {
			return err
		}
		t, err := files(m.t)
		if err != nil {
			return err
		}
		var merged map[string][]byte
		if m.fileMerger != nil {
			merged, err = m.fileMerger(m.r.RelPath(dir), b, o, t)
			if err != nil {
				m.r.warn("cannot merge %s: %v", m.r.RelPath(dir), err)
			}
		}
		if m.fileMerger == nil || err != nil {
			for name := range o {
				if !bytes.Equal(o[name], t[name]) {
					m.conflict(dir + "/" + name)
				}
			}
			continue
		}
		names := map[string]bool{}
		for n := range o {
			names[n] = true
		}
		for n := range merged {
			names[n] = true
		}
		for n := range names {
			gp := dir + "/" + n
			data, keep := merged[n]
			switch {
			case !keep || data == nil:
				if _, ok := o[n]; ok {
					m.set(gp, nil, true)
				}
			case bytes.Equal(data, o[n]):
				delete(m.out, gp)
			default:
				m.set(gp, data, false)
			}
		}
	}
	return nil
}
