package registry

import (
	"errors"
	"os"
	"strings"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/ledger"
)

// Ledgers reads every skill's ledger, keyed by skill name; unreadable lines
// are reported through the registry's warning hook.
func (r *Registry) Ledgers() (map[string][]ledger.Entry, error) {
	dir := r.abs(local.LedgerDir)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return map[string][]ledger.Entry{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string][]ledger.Entry, len(ents))
	for _, ent := range ents {
		name, ok := strings.CutSuffix(ent.Name(), ".jsonl")
		if !ok || ent.IsDir() {
			continue
		}
		if out[name], err = r.Ledger(name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Ledger reads one skill's ledger (none: no entries); malformed lines are
// skipped with a warning, as Ledgers does.
func (r *Registry) Ledger(name string) ([]ledger.Entry, error) {
	return r.ledgerEntries(local.LedgerDir + "/" + name + ".jsonl")
}

// ledgerEntries reads the ledger at rel (missing: no entries), warning of
// each malformed line.
func (r *Registry) ledgerEntries(rel string) ([]ledger.Entry, error) {
	data, err := r.readLedger(rel)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	entries, problems := ledger.Parse(rel, data)
	for _, p := range problems {
		r.warn("%s", p)
	}
	return entries, nil
}
