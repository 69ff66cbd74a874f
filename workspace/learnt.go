package workspace

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/safetext"
)

// Prompts learnt from the agents' history (`megagit learn history`) are
// kept in LearntFile of the local folder of the registry that owns each
// skill (Sourced.Owner: a registry's own skills in it, the agents' native
// folders' in the user registry): on this machine only, never committed,
// never pushed. Routing reads them as a skill's learnt contexts
// (ranker.Doc.Learnt), each weighing ranker.Blend.Learnt of an explicit
// HELPFUL verdict's context; they are never a verdict and move no status.
const (
	LearntFile = "learnt.jsonl"
	// LearntRouted is how many of a skill's learnt prompts routing reads,
	// the newest; LearntKept how many the store keeps (the rest are
	// dropped, oldest first).
	LearntRouted = 20
	LearntKept   = 50
	learntLock   = "learnt.lock"
	learntWait   = 10 * time.Second // two imports, or an import and a forget, take turns
	maxLearnt    = 64 << 20
)

// Learnt is one prompt the agent's history shows the skill served.
type Learnt struct {
	Skill   string    `json:"skill"`
	Prompt  string    `json:"prompt"`
	Agent   string    `json:"agent"`
	Session string    `json:"session"`
	How     string    `json:"how"`
	Time    time.Time `json:"time"`
	// Key names the use (agent, session, skill, prompt), so an import run
	// twice learns nothing new.
	Key string `json:"key"`
}

// LearntKey is the key of a use.
func LearntKey(agent, session, skill, prompt string) string {
	h := sha256.Sum256([]byte(agent + "\x00" + session + "\x00" + strings.ToLower(skill) + "\x00" + prompt))
	return hex.EncodeToString(h[:16])
}

// CleanLearnt is a prompt as it may be kept: secrets redacted, cut to a
// context's length, on one line of printable text ("" when nothing is
// left).
func CleanLearnt(prompt string) string {
	s, _ := safetext.Context.Clean(prompt)
	return strings.TrimSpace(strings.Join(strings.Fields(s), " "))
}

// learntPath is the store of a registry's local folder.
func learntPath(ld local.Dir) string { return filepath.Join(ld.Path(), LearntFile) }

// readLearnt reads a store; a missing one is empty, a line that does not
// parse is skipped (counted in bad).
func readLearnt(path string) (recs []Learnt, bad int, err error) {
	data, err := local.ReadRegular(path, maxLearnt)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var r Learnt
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Skill == "" || r.Prompt == "" || r.Key == "" {
			bad++
			continue
		}
		recs = append(recs, r)
	}
	return recs, bad, sc.Err()
}

// learntStores are the stores routing reads here: this registry's, the
// user registry's and the team registry's, each once.
func (w *Workspace) learntStores() []local.Dir {
	var out []local.Dir
	seen := map[string]bool{}
	add := func(ld local.Dir) {
		if !seen[ld.Path()] {
			seen[ld.Path()] = true
			out = append(out, ld)
		}
	}
	add(w.Reg.Local())
	if u, err := w.Personal(); err == nil && u != nil {
		add(u.Reg.Local())
	}
	if t, err := w.Team(); err == nil && t != nil {
		add(t.Reg.Local())
	}
	return out
}

// LearntPrompts are the learnt prompts of every store routing reads, by
// lower-case skill name, oldest first.
func (w *Workspace) LearntPrompts() (map[string][]Learnt, error) {
	out := map[string][]Learnt{}
	var errs []error
	for _, ld := range w.learntStores() {
		recs, _, err := readLearnt(learntPath(ld))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, r := range recs {
			k := strings.ToLower(r.Skill)
			out[k] = append(out[k], r)
		}
	}
	for k := range out {
		sort.SliceStable(out[k], func(i, j int) bool { return out[k][i].Time.Before(out[k][j].Time) })
	}
	return out, errors.Join(errs...)
}

// withLearnt gives each document its newest LearntRouted learnt prompts
// (not already one of its helpful contexts) and when the newest was used.
func (w *Workspace) withLearnt(docs []ranker.Doc) ([]ranker.Doc, error) {
	learnt, err := w.LearntPrompts()
	if len(learnt) == 0 {
		return docs, err
	}
	for i := range docs {
		recs := learnt[strings.ToLower(docs[i].ID)]
		if len(recs) == 0 {
			continue
		}
		have := map[string]bool{}
		for _, c := range docs[i].HelpfulContexts {
			have[c] = true
		}
		var prompts []string
		var newest time.Time
		for j := len(recs) - 1; j >= 0 && len(prompts) < LearntRouted; j-- {
			if p := recs[j].Prompt; !have[p] {
				have[p] = true
				prompts = append(prompts, p)
				if recs[j].Time.After(newest) {
					newest = recs[j].Time
				}
			}
		}
		docs[i].Learnt = prompts
		if !newest.IsZero() {
			docs[i].LearntUpdated = newest.Unix()
		}
	}
	return docs, err
}

// AddLearnt keeps recs in the store of the local folder ld (of the
// registry owning their skills), each once (Key), and at most LearntKept
// per skill, the newest; how many were new.
func AddLearnt(ld local.Dir, recs []Learnt) (int, error) {
	if len(recs) == 0 {
		return 0, nil
	}
	if err := ld.Check(); err != nil {
		return 0, err
	}
	if err := local.MkdirAll(ld.Path()); err != nil {
		return 0, err
	}
	lock, err := ld.AcquireFile(learntLock, learntWait)
	if err != nil {
		return 0, err
	}
	defer lock.Release()
	p := learntPath(ld)
	old, _, err := readLearnt(p)
	if err != nil {
		return 0, err
	}
	seen := map[string]bool{}
	for _, r := range old {
		seen[r.Key] = true
	}
	all, added := old, 0
	for _, r := range recs {
		if seen[r.Key] {
			continue
		}
		seen[r.Key] = true
		all = append(all, r)
		added++
	}
	if added == 0 {
		return 0, nil
	}
	return added, writeLearnt(p, keepNewest(all, LearntKept))
}

// keepNewest keeps at most n records per skill, the newest, in time order.
func keepNewest(recs []Learnt, n int) []Learnt {
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Time.Before(recs[j].Time) })
	count := map[string]int{}
	keep := make([]bool, len(recs))
	for i := len(recs) - 1; i >= 0; i-- {
		k := strings.ToLower(recs[i].Skill)
		if count[k] < n {
			count[k]++
			keep[i] = true
		}
	}
	out := recs[:0]
	for i, r := range recs {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out
}

func writeLearnt(p string, recs []Learnt) error {
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return local.WriteFileAtomic(p, b.Bytes(), 0o600)
}

// ForgetLearnt removes, from every store routing reads here, the learnt
// prompts of the skills named (none: all of them); how many went.
func (w *Workspace) ForgetLearnt(skills []string) (int, error) {
	names := map[string]bool{}
	for _, s := range skills {
		names[strings.ToLower(s)] = true
	}
	gone := 0
	for _, ld := range w.learntStores() {
		n, err := forgetIn(ld, names)
		gone += n
		if err != nil {
			return gone, fmt.Errorf("%s: %w", learntPath(ld), err)
		}
	}
	return gone, nil
}

func forgetIn(ld local.Dir, names map[string]bool) (int, error) {
	p := learntPath(ld)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	lock, err := ld.AcquireFile(learntLock, learntWait)
	if err != nil {
		return 0, err
	}
	defer lock.Release()
	recs, bad, err := readLearnt(p)
	if err != nil {
		return 0, err
	}
	var keep []Learnt
	for _, r := range recs {
		if len(names) > 0 && !names[strings.ToLower(r.Skill)] {
			keep = append(keep, r)
		}
	}
	gone := len(recs) - len(keep)
	if len(names) == 0 {
		gone += bad // all: the unreadable lines go too
	}
	return gone, writeLearnt(p, keep)
}

// LearntKeys are the keys of the store of ld.
func LearntKeys(ld local.Dir) map[string]bool {
	recs, _, _ := readLearnt(learntPath(ld))
	out := make(map[string]bool, len(recs))
	for _, r := range recs {
		out[r.Key] = true
	}
	return out
}
