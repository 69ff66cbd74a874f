package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Stamp fingerprints what Skill would read in dir: every entry's path,
// type, size and modification time, walked as Skill walks. A skill whose
// stamp is unchanged has the findings it had, so a caller may keep them
// (the audit of a large catalog costs seconds; its stamp, a stat a file).
func Stamp(dir string) string {
	h := sha256.New()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel := relSlash(dir, p)
		if err != nil {
			fmt.Fprintf(h, "%s\x00err %v\n", rel, err)
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() && d.Name() == ".git" && p != dir {
			return fs.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			fmt.Fprintf(h, "%s\x00gone\n", rel)
			return nil
		}
		fmt.Fprintf(h, "%s\x00%v %d %d\n", rel, info.Mode(), info.Size(), info.ModTime().UnixNano())
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

// RuleLockDrift is no rule of the audit's own: it is the word an allow
// (the audit.allow setting) uses for an installed skill whose files no
// longer match .megagit/skills.lock.
const RuleLockDrift = "lock-drift"

// Allowable says whether id may be allowed: a rule, RuleLockDrift, or *
// for every one.
func Allowable(id string) bool {
	_, ok := RuleOf(id)
	return ok || id == RuleLockDrift || id == "*"
}

// RuleIDs are every rule's id, in Rules' order.
func RuleIDs() []string {
	out := make([]string, len(Rules))
	for i, r := range Rules {
		out[i] = r.ID
	}
	return out
}
