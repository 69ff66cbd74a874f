// Package benchload reads a benchmark folder as `megagit eval` does, for
// the lab's probes: its skills as routing sees them, and its queries.
package benchload

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/megagit/megagit/eval"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/workspace"
)

// MustLoad reads DIR/skills and the queries file ("" is DIR/queries.jsonl),
// or prints why it cannot and exits 1.
func MustLoad(dir, queries string) *eval.Bench {
	if queries == "" {
		queries = filepath.Join(dir, "queries.jsonl")
	}
	b, err := eval.Load(dir, queries, func(s []*registry.Skill) []ranker.Doc { return workspace.SkillDocs(s, nil) }, func(string) {})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return b
}
