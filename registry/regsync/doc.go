// Package regsync shares a registry through a git remote: fetch, megagit's
// own three-way merge (ledgers by verdict id, mega_meta recomputed from the
// merged ledgers, embedding caches through a FileMerger), push, and the
// remote verbs around it: add and list remotes, clone, ping.
//
// It builds on the registry's store: every branch move goes through
// registry's lock, crash recovery and redo journal (Registry.CommitMerge);
// credentials come from gitauth.
package regsync

import (
	"fmt"

	"github.com/megagit/megagit/registry"
)

// reg is the registry being synced, with the sync's own helpers as methods.
type reg struct{ *registry.Registry }

func (r reg) warn(format string, args ...any) { r.Options().Warn(fmt.Sprintf(format, args...)) }
