// Package skillslock is .megagit/skills.lock, the committed record of
// where installed skills came from: its format, its hashes of a skill's
// files, and its merge by skill name. It reads and writes bytes only: the
// registry reads the file and commits it.
package skillslock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/skillfile"
)

// File is the committed record of where installed skills came from
// (`megagit skill install`), registry-relative: sync merges it by skill
// name, update reads it to fetch each skill's source again.
const File = ".megagit/skills.lock"

// lockVersion is the format of File; a newer one is refused, not
// rewritten. 2: an entry's ref kind and install mode.
const lockVersion = 2

// Lock is the content of File: one entry per installed skill, by the
// skill's name in the registry.
type Lock struct {
	Version int              `json:"version"`
	Skills  map[string]Entry `json:"skills"`
}

// Entry is one installed skill's provenance. Files hash every file of
// the skill's folder as installed, by path inside the folder; SKILL.md's
// hash is of its text without mega_meta (FileHash), so the evidence a
// verdict writes is not a local edit.
type Entry struct {
	Source     string `json:"source"`        // the URL or path, its secrets stripped
	Ref        string `json:"ref,omitempty"` // as asked for; "" is the source's default branch
	Commit     string `json:"commit"`        // the commit the files came from
	CommitTime string `json:"commit_time"`   // its committer time, RFC 3339 UTC
	Path       string `json:"path"`          // the skill's folder in the source ("." for its top)
	// RefKind is what Ref named: RefBranch (the default branch when Ref
	// is ""), RefTag or RefCommit; a tag or a commit is a pin, which
	// `skill update` keeps. Mode is how the skill was chosen: ModeName,
	// ModePath or ModeAll. Both are "" in an entry of version 1.
	RefKind string            `json:"ref_kind,omitempty"`
	Mode    string            `json:"mode,omitempty"`
	Files   map[string]string `json:"files"` // file in the folder -> sha256 (hex)
}

// The ref kinds and install modes of an Entry.
const (
	RefBranch = "branch"
	RefTag    = "tag"
	RefCommit = "commit"
	ModeName  = "name"
	ModePath  = "path"
	ModeAll   = "all"
)

// Pinned says whether the entry names a tag or a commit, which an update
// does not move from.
func (e Entry) Pinned() bool { return e.RefKind == RefTag || e.RefKind == RefCommit }

// Time is the entry's commit time (zero when it does not read).
func (e Entry) Time() time.Time {
	t, _ := time.Parse(time.RFC3339, e.CommitTime)
	return t
}

// Equal reports whether two entries say the same thing.
func (e Entry) Equal(o Entry) bool {
	if e.Source != o.Source || e.Ref != o.Ref || e.Commit != o.Commit || e.CommitTime != o.CommitTime || e.Path != o.Path || len(e.Files) != len(o.Files) ||
		e.RefKind != o.RefKind || e.Mode != o.Mode {
		return false
	}
	for k, v := range e.Files {
		if o.Files[k] != v {
			return false
		}
	}
	return true
}

// FileHash is the sha256 a lock entry keeps for a file of a skill's folder:
// of its bytes, except SKILL.md, whose mega_meta (the registry's evidence)
// is left out first. A SKILL.md that does not parse is hashed as it is.
func FileHash(name string, data []byte) string {
	if name == "SKILL.md" {
		if f, err := skillfile.Parse(name, data); err == nil {
			if bare, err := f.WithoutEvidence(); err == nil {
				data = bare
			}
		}
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Parse reads a lock file's bytes; nil or empty is an empty lock (a
// side of a merge without the file). Anything else must be the format:
// one JSON object with its version (`null`, `{}` or a list is no lock).
func Parse(data []byte) (Lock, error) {
	l := Lock{Version: lockVersion, Skills: map[string]Entry{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return l, nil
	}
	l.Version = 0
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return l, fmt.Errorf("%w: %s is not a lock file: %v", errkind.ErrInvalid, File, err)
	}
	if dec.More() {
		return l, fmt.Errorf("%w: %s is not a lock file: more than one JSON value", errkind.ErrInvalid, File)
	}
	if l.Version < 1 {
		return l, fmt.Errorf("%w: %s is not a lock file: no \"version\" (megagit writes {\"version\": %d, \"skills\": {...}})", errkind.ErrInvalid, File, lockVersion)
	}
	if l.Version > lockVersion {
		return l, fmt.Errorf("%w: %s is version %d; this megagit reads up to %d (upgrade megagit)", errkind.ErrInvalid, File, l.Version, lockVersion)
	}
	if l.Skills == nil {
		l.Skills = map[string]Entry{}
	}
	return l, nil
}

// Format is the lock's bytes: indented JSON, keys sorted (encoding/json
// sorts map keys), one final newline, so the same lock is always the same
// bytes and a diff shows only what changed. Every source is written
// without its credentials (gitauth.Strip), whoever put them there: a lock
// is committed and shared.
func (l Lock) Format() []byte {
	l.Version = lockVersion
	skills := make(map[string]Entry, len(l.Skills))
	for n, e := range l.Skills {
		e.Source = gitauth.Strip(e.Source)
		skills[n] = e
	}
	l.Skills = skills
	out, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		panic(err) // strings and maps of strings always marshal
	}
	return append(out, '\n')
}

// StripSecrets is data, a lock file's bytes, written again without the
// credentials of its sources, and whether any source held one (a lock a
// teammate edited by hand); data that is no lock, or holds no credential,
// comes back as it is.
func StripSecrets(data []byte) ([]byte, bool) {
	l, err := Parse(data)
	if err != nil {
		return data, false
	}
	for _, e := range l.Skills {
		if gitauth.Strip(e.Source) != e.Source {
			return l.Format(), true
		}
	}
	return data, false
}

// Names lists the lock's skills, sorted.
func (l Lock) Names() []string {
	out := make([]string, 0, len(l.Skills))
	for n := range l.Skills {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Merge merges two sides' locks over their merge base, entry by skill
// name: an entry changed on one side takes that side; one changed on both
// sides to different values takes the entry of the newer resolved commit
// (its commit time), or when the times are equal the entry whose commit
// hash sorts last, so every machine picks the same; an entry one side
// removed and the other changed is kept as changed. It never conflicts on
// the lock itself: the skill's files, merged as any files are, say whether
// the two sides' skills really clash.
func Merge(base, ours, theirs Lock) Lock {
	out := Lock{Version: lockVersion, Skills: map[string]Entry{}}
	names := map[string]bool{}
	for _, l := range []Lock{base, ours, theirs} {
		for n := range l.Skills {
			names[n] = true
		}
	}
	for n := range names {
		b, inB := base.Skills[n]
		o, inO := ours.Skills[n]
		t, inT := theirs.Skills[n]
		oursCh := inO != inB || (inO && !o.Equal(b))
		theirsCh := inT != inB || (inT && !t.Equal(b))
		var keep Entry
		var ok bool
		switch {
		case !theirsCh:
			keep, ok = o, inO
		case !oursCh:
			keep, ok = t, inT
		case !inO:
			keep, ok = t, inT // removed here, changed there: keep the change
		case !inT:
			keep, ok = o, true
		default:
			keep, ok = newerEntry(o, t), true
		}
		if ok {
			out.Skills[n] = keep
		}
	}
	return out
}

// newerEntry is the entry of the newer resolved commit; ties go to the
// larger commit hash, then to ours.
func newerEntry(o, t Entry) Entry {
	ot, tt := o.Time(), t.Time()
	switch {
	case tt.After(ot):
		return t
	case ot.After(tt):
		return o
	case t.Commit > o.Commit:
		return t
	}
	return o
}

// FileDiff is how two versions of a skill's folder differ, by path inside
// the folder.
type FileDiff struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// Empty reports whether the two versions hold the same files.
func (d FileDiff) Empty() bool { return len(d.Added)+len(d.Removed)+len(d.Changed) == 0 }

// DiffHashes compares two file -> sha256 maps (old, new).
func DiffHashes(old, new map[string]string) FileDiff {
	d := FileDiff{Added: []string{}, Removed: []string{}, Changed: []string{}}
	for f, h := range new {
		switch oh, ok := old[f]; {
		case !ok:
			d.Added = append(d.Added, f)
		case oh != h:
			d.Changed = append(d.Changed, f)
		}
	}
	for f := range old {
		if _, ok := new[f]; !ok {
			d.Removed = append(d.Removed, f)
		}
	}
	sort.Strings(d.Added)
	sort.Strings(d.Removed)
	sort.Strings(d.Changed)
	return d
}

// HashFiles is the lock's hashes of a skill folder's files.
func HashFiles(files map[string][]byte) map[string]string {
	out := make(map[string]string, len(files))
	for f, data := range files {
		out[f] = FileHash(f, data)
	}
	return out
}

// Describe says what differs, "changed a, b; added c; removed d", each
// list cut to its first max paths and how many more (max 0: all).
func (d FileDiff) Describe(max int) string {
	var parts []string
	for _, x := range []struct {
		verb  string
		files []string
	}{{"changed", d.Changed}, {"added", d.Added}, {"removed", d.Removed}} {
		files := x.files
		if max > 0 && len(files) > max {
			files = append(append([]string(nil), files[:max]...), fmt.Sprintf("%d more", len(x.files)-max))
		}
		if len(files) > 0 {
			parts = append(parts, x.verb+" "+strings.Join(files, ", "))
		}
	}
	return strings.Join(parts, "; ")
}
