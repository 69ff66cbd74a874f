package inject

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/megagit/megagit/ranker"
)

// The agent gets a path it can open from its working directory: relative
// inside it, absolute outside it, whatever form the index keeps.
func TestAgentDocsPaths(t *testing.T) {
	project := t.TempDir()
	root := filepath.Join(project, "reg")
	home := t.TempDir()
	docs := []ranker.Doc{
		{ID: "own", Path: "skills/own/SKILL.md"},
		{ID: "native", Path: filepath.Join(project, ".agents/skills/native/SKILL.md")},
		{ID: "user", Path: filepath.Join(home, ".claude/skills/user/SKILL.md")},
	}
	for _, tt := range []struct {
		cwd  string
		want []string
	}{
		{project, []string{"reg/skills/own/SKILL.md", ".agents/skills/native/SKILL.md", docs[2].Path}},
		{root, []string{"skills/own/SKILL.md", docs[1].Path, docs[2].Path}},
		{home, []string{filepath.Join(root, "skills/own/SKILL.md"), docs[1].Path, ".claude/skills/user/SKILL.md"}},
	} {
		got, idx := agentDocs(docs, []int{0, 1, 2}, root, tt.cwd)
		for i, d := range idx {
			if got[d].Path != tt.want[i] {
				t.Errorf("cwd %s: %s at %q, want %q", tt.cwd, got[d].ID, got[d].Path, tt.want[i])
			}
		}
	}
	if docs[0].Path != "skills/own/SKILL.md" {
		t.Errorf("the index's documents were changed: %q", docs[0].Path)
	}
	// Without a cwd in the event, the process's working directory.
	wd, _ := os.Getwd()
	got, _ := agentDocs([]ranker.Doc{{ID: "x", Path: filepath.Join(wd, "a/SKILL.md")}}, []int{0}, root, "")
	if got[0].Path != "a/SKILL.md" {
		t.Errorf("no cwd: %q", got[0].Path)
	}
}
