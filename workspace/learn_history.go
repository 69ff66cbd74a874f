package workspace

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/megagit/megagit/learn/history"
	"github.com/megagit/megagit/learn/learnt"
	"github.com/megagit/megagit/local"
)

// HistoryCheckpoint is the file, in the registry's local folder, of the
// sessions an import read, each with the size and time it had: unchanged,
// it is not read again, so a killed import resumes.
const HistoryCheckpoint = "history.json"

// HistoryOptions narrow `megagit learn history`.
type HistoryOptions struct {
	Agents []string  // nil: every agent
	Since  time.Time // zero: every session
	DryRun bool      // say what would be learnt; write nothing
	// Progress is told how many of the sessions were read so far (nil:
	// nothing is told).
	Progress func(done, total int)
	// Warn gets a session that could not be read; the import goes on.
	Warn func(error)
}

// LearnedSkill is what one skill learnt from an import.
type LearnedSkill struct {
	Skill  string         `json:"skill"`
	New    int            `json:"new"`
	Agents map[string]int `json:"agents"`
}

// HistoryResult is what an import read and learnt.
type HistoryResult struct {
	Sessions, Read, Skipped, Uses, Spoiled, Unknown int
	// Learnt are the skills that learnt a prompt, most first.
	Learnt []LearnedSkill
	// Problems are the skills that did not parse and the sources that
	// could not be read, as the catalog found them.
	Problems []error
}

// LearnHistory reads the agents' session files and keeps, in the store
// of the registry that owns each skill, the prompts each skill megagit
// routes served (learn/history finds the uses; learn/learnt keeps each
// once). Sessions read before and unchanged since are skipped.
func (w *Workspace) LearnHistory(o HistoryOptions) (HistoryResult, error) {
	var res HistoryResult
	c, err := w.Catalog()
	if err != nil {
		return res, err
	}
	res.Problems = c.Problems
	// The skills megagit routes, by lower-case name and by SKILL.md.
	byName, byPath := map[string]*Sourced{}, map[string]*Sourced{}
	for _, s := range c.Skills {
		if !s.Routable() {
			continue
		}
		byName[strings.ToLower(s.Name)] = s
		if real, err := filepath.EvalSymlinks(s.AbsPath); err == nil {
			byPath[real] = s
		}
		byPath[s.AbsPath] = s
	}
	sessions, err := history.Sessions(history.Options{Agents: o.Agents, Since: o.Since})
	if err != nil {
		return res, err
	}
	res.Sessions = len(sessions)
	ld := w.Reg.Local()
	seen := readCheckpoint(ld)
	type pending struct {
		ld   local.Dir
		recs []learnt.Learnt
	}
	stores := map[string]*pending{}
	done := map[string]string{}
	progress := o.Progress
	if progress == nil {
		progress = func(int, int) {}
	}
	for i, s := range sessions {
		progress(i, len(sessions))
		stamp := fmt.Sprintf("%d:%d", s.Size, s.ModTime.UnixNano())
		if seen[s.Path] == stamp {
			res.Skipped++
			done[s.Path] = stamp
			continue
		}
		found, err := history.Read(s)
		if err != nil {
			if o.Warn != nil {
				o.Warn(err)
			}
			continue
		}
		res.Read++
		done[s.Path] = stamp
		for _, u := range found {
			res.Uses++
			if u.Spoiled {
				res.Spoiled++
				continue
			}
			sk := byName[strings.ToLower(u.Skill)]
			if u.SkillPath != "" {
				p := u.SkillPath
				if real, err := filepath.EvalSymlinks(p); err == nil {
					p = real
				}
				if byPath[p] != nil {
					sk = byPath[p]
				}
			}
			prompt := learnt.CleanLearnt(u.Prompt)
			if sk == nil || prompt == "" {
				res.Unknown++
				continue
			}
			owner := sk.Owner
			if owner == nil {
				owner = w.Reg
			}
			key := owner.LocalDir()
			if stores[key] == nil {
				stores[key] = &pending{ld: owner.Local()}
			}
			stores[key].recs = append(stores[key].recs, learnt.Learnt{
				Skill: sk.Name, Prompt: prompt, Agent: u.Agent, Session: u.Session, How: u.How, Time: u.Time.UTC(),
				Key: learnt.LearntKey(u.Agent, u.Session, sk.Name, prompt),
			})
		}
	}
	progress(len(sessions), len(sessions))
	keys := make([]string, 0, len(stores))
	for k := range stores {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	learned := map[string]*LearnedSkill{}
	for _, k := range keys {
		p := stores[k]
		added, err := learnt.AddLearnt(p.ld, p.recs, o.DryRun)
		if err != nil {
			return res, err
		}
		for _, r := range added {
			l := learned[r.Skill]
			if l == nil {
				l = &LearnedSkill{Skill: r.Skill, Agents: map[string]int{}}
				learned[r.Skill] = l
			}
			l.New++
			l.Agents[r.Agent]++
		}
	}
	if !o.DryRun {
		if err := writeCheckpoint(ld, seen, done); err != nil {
			return res, err
		}
	}
	res.Learnt = make([]LearnedSkill, 0, len(learned))
	for _, l := range learned {
		res.Learnt = append(res.Learnt, *l)
	}
	sort.Slice(res.Learnt, func(i, j int) bool {
		a, b := res.Learnt[i], res.Learnt[j]
		return a.New > b.New || a.New == b.New && a.Skill < b.Skill
	})
	return res, nil
}

// ForgetSessionsRead empties the checkpoint, so the next import reads
// every session again (`megagit learn forget --all`).
func (w *Workspace) ForgetSessionsRead() error {
	return w.Reg.Local().Write(HistoryCheckpoint, []byte("{}"))
}

func readCheckpoint(ld local.Dir) map[string]string {
	out := map[string]string{}
	data, err := ld.Read(HistoryCheckpoint)
	if err == nil {
		_ = json.Unmarshal(data, &out)
	}
	return out
}

// writeCheckpoint keeps the sessions read (done), and those read before
// that this run did not list (older than --since, another --agent).
func writeCheckpoint(ld local.Dir, seen, done map[string]string) error {
	for p, st := range seen {
		if _, ok := done[p]; !ok {
			done[p] = st
		}
	}
	data, err := json.Marshal(done)
	if err != nil {
		return err
	}
	return ld.Write(HistoryCheckpoint, data)
}
