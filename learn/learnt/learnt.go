package learnt

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/safetext"
)

// Prompts learnt from the agents' history (`megagit learn history`, and
// the stop hook for the skills an agent used on its own) are kept in
// LearntFile of the local folder of the registry that owns each
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
	s, _ := safetext.Context.Clean(safetext.RedactSecrets(prompt))
	return strings.TrimSpace(strings.Join(strings.Fields(s), " "))
}

// LearntPath is the store of a registry's local folder.
func LearntPath(ld local.Dir) string { return filepath.Join(ld.Path(), LearntFile) }

// ReadLearnt reads a store; a missing one is empty, a line that does not
// parse is skipped (counted in bad).
func ReadLearnt(path string) (recs []Learnt, bad int, err error) {
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

// AddLearnt keeps recs in the store of the local folder ld (of the
// registry owning their skills), each once (Key), and at most LearntKept
// per skill, the newest; it returns the ones that were new. dryRun says
// which would be, and writes nothing.
func AddLearnt(ld local.Dir, recs []Learnt, dryRun bool) ([]Learnt, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	if err := ld.Check(); err != nil {
		return nil, err
	}
	p := LearntPath(ld)
	if dryRun {
		old, _, err := ReadLearnt(p)
		_, added := merge(old, recs)
		return added, err
	}
	if err := local.MkdirAll(ld.Path()); err != nil {
		return nil, err
	}
	lock, err := ld.AcquireFile(learntLock, learntWait)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	old, _, err := ReadLearnt(p)
	if err != nil {
		return nil, err
	}
	all, added := merge(old, recs)
	if len(added) == 0 {
		return nil, nil
	}
	return added, writeLearnt(p, all)
}

// merge is the store old with recs added: each key once, LearntKept per
// skill, the newest; and the records of recs that are in it and were not
// before (a use older than a full skill's kept ones is not: an import run
// again adds nothing).
func merge(old, recs []Learnt) (all, added []Learnt) {
	seen := make(map[string]bool, len(old))
	for _, r := range old {
		seen[r.Key] = true
	}
	isNew := map[string]bool{}
	all = append([]Learnt(nil), old...)
	for _, r := range recs {
		if !seen[r.Key] {
			seen[r.Key] = true
			isNew[r.Key] = true
			all = append(all, r)
		}
	}
	all = keepNewest(all, LearntKept)
	for _, r := range all {
		if isNew[r.Key] {
			added = append(added, r)
		}
	}
	return all, added
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

func Forget(ld local.Dir, names map[string]bool) (int, error) {
	p := LearntPath(ld)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	lock, err := ld.AcquireFile(learntLock, learntWait)
	if err != nil {
		return 0, err
	}
	defer lock.Release()
	recs, bad, err := ReadLearnt(p)
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
