package workspace

import (
	"fmt"
	"time"

	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/gitstore"
)

// Switched is a skill turned off or on: which, where its ledger line went
// and the commit.
type Switched struct {
	Skill *Sourced
	Reg   *registry.Registry
	Hash  gitstore.Hash
}

// SetDisabled turns a skill off (disable) or on again, in the registry
// that owns it, as a verdict would be recorded: this registry's skill in
// its ledger and evidence block, a team or personal skill in its own
// registry, and a read-only skill (a native folder, a plugin) in the user
// registry's ledger of its name and SKILL.md hash (registry.NativeKey), so
// its folder is never written.
func (w *Workspace) SetDisabled(name string, disable bool, reason string, now time.Time) (Switched, error) {
	c, err := w.Catalog()
	if err != nil {
		return Switched{}, err
	}
	s := c.Lookup(name)
	if s == nil {
		return Switched{}, fmt.Errorf("%w: skill %q", registry.ErrNotFound, name)
	}
	out := Switched{Skill: s, Reg: s.Owner}
	if s.NativeKey != "" {
		out.Hash, err = s.Owner.SetNativeDisabled(s.NativeKey, disable, reason, now)
	} else {
		out.Hash, err = s.Owner.SetDisabled(name, disable, reason, now)
	}
	return out, err
}
