package adopt

import (
	"testing"

	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/workspace"
)

func TestExcepted(t *testing.T) {
	except := map[string]bool{"pdf-forms": true, "docs-kit:sign-pdf": true, "lint-fix": true}
	for _, tc := range []struct {
		name, plugin string
		want         bool
	}{
		{"docs-kit:pdf-forms", "docs-kit@local-market", true}, // the bare name
		{"docs-kit:sign-pdf", "docs-kit@local-market", true},  // the qualified one
		{"docs-kit:fill-w9", "docs-kit@local-market", false},
		{"lint-fix", "", true},
		{"pdf-tables", "", false},
		// A folder's skill is named by its whole name only.
		{"a:pdf-forms", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := excepted(except, &workspace.Sourced{Skill: &registry.Skill{Name: tc.name}, Plugin: tc.plugin}); got != tc.want {
				t.Fatalf("excepted(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}
