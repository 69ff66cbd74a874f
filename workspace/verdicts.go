package workspace

import (
	"slices"
	"time"

	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/ledger"
)

// Recorded is one commit of verdicts: in which registry, on skills of
// which source, what each did.
type Recorded struct {
	Reg  *registry.Registry
	Kind string
	// Native lists the read-only skills' keys among them.
	Native  []string
	Applied []registry.Applied
	Hash    gitstore.Hash
}

// RecordVerdicts records each verdict in the registry that owns its skill:
// this registry's skills here, the team registry's there (its SKILL.md and
// ledger), and a read-only skill's (a native folder outside any registry,
// never written) in the user registry, keyed by its name and SKILL.md's
// hash. One commit per registry, whatever the skills' sources: this
// registry's first. The other sources are read only when a verdict is on a
// skill the registry does not hold.
func (w *Workspace) RecordVerdicts(inputs []registry.VerdictInput, now time.Time) ([]Recorded, error) {
	c := &Catalog{}
	for _, in := range inputs {
		// One stat per root, not a scan of every skill: a verdict's cost
		// must not grow with the registry.
		if !w.Reg.HasSkill(in.Skill) {
			var err error
			if c, err = w.Others(); err != nil {
				return nil, err
			}
			break
		}
	}
	return w.RecordVerdictsIn(c, inputs, now)
}

// RecordVerdictsIn is RecordVerdicts with the other sources already read
// (Others): a skill not among them is the registry's.
func (w *Workspace) RecordVerdictsIn(c *Catalog, inputs []registry.VerdictInput, now time.Time) ([]Recorded, error) {
	type batch struct {
		Recorded
		own    []registry.VerdictInput
		native []registry.NativeBatch
	}
	var batches []*batch
	find := func(reg *registry.Registry, kind string) *batch {
		for _, b := range batches {
			if b.Reg == reg {
				return b
			}
		}
		b := &batch{Recorded: Recorded{Reg: reg, Kind: kind}}
		batches = append(batches, b)
		return b
	}
	find(w.Reg, KindProject)
	for _, in := range inputs {
		s := c.Lookup(in.Skill)
		switch {
		case s == nil:
			b := find(w.Reg, KindProject) // the registry says what is wrong
			b.own = append(b.own, in)
		case s.NativeKey != "":
			b := find(s.Owner, s.Kind)
			k := slices.IndexFunc(b.native, func(n registry.NativeBatch) bool { return n.Key == s.NativeKey })
			if k < 0 {
				b.native = append(b.native, registry.NativeBatch{Key: s.NativeKey})
				b.Native = append(b.Native, s.NativeKey)
				k = len(b.native) - 1
			}
			b.native[k].Inputs = append(b.native[k].Inputs, in)
		default:
			b := find(s.Owner, s.Kind)
			b.own = append(b.own, in)
		}
	}
	var out []Recorded
	for _, b := range batches {
		if len(b.own) == 0 && len(b.native) == 0 {
			continue
		}
		var err error
		b.Applied, b.Hash, err = b.Reg.RecordBatch(b.own, b.native, now)
		if err != nil {
			return out, err
		}
		out = append(out, b.Recorded)
	}
	return out, nil
}

// Ledgers are the ledgers of every skill used, by name, wherever it
// comes from (a read-only skill's from the user registry).
func (c *Catalog) Ledgers() map[string][]ledger.Entry {
	out := make(map[string][]ledger.Entry, len(c.Skills))
	for _, s := range c.Skills {
		out[s.Name] = s.Ledger
	}
	return out
}
