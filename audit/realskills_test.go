package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/ranker"
)

// The published skills of testdata/realskills are honest: the audit
// flags at most 2 % of them high, and names each one it does.
func TestRealSkillsAreRarelyHigh(t *testing.T) {
	root := filepath.Join("..", "testdata", "realskills", "skills")
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	skills, high := 0, 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		skills++
		fs := Skill(filepath.Join(root, e.Name()))
		if Worst(fs) == High {
			high++
			for _, f := range fs {
				if f.Severity == High {
					t.Logf("%s: %s", e.Name(), f)
				}
			}
		}
	}
	if skills < 30 {
		t.Fatalf("read %d skills from %s", skills, root)
	}
	if high*50 > skills {
		t.Fatalf("%d of %d published skills flagged high (more than 2 %%)", high, skills)
	}
}

// Markers are the lines megagit itself opens its injections with.
func TestMarkersAreMegagits(t *testing.T) {
	docs := []ranker.Doc{{ID: "a", Description: "d", Body: "b"}}
	opens := []string{
		ranker.RenderCatalog(docs, []int{0}, 0).Text,
		ranker.RenderCompose(docs, []int{0}, 0).Text,
		hook.ReportInstruction,
		hook.SessionInstruction,
		hook.InjectionText("", []string{"a"}, ""),
	}
	for i, text := range opens {
		first := strings.ToLower(strings.SplitN(text, "\n", 2)[0])
		if !strings.HasPrefix(first, Markers[i]) {
			t.Errorf("megagit's injection opens with %q, not with marker %q", first, Markers[i])
		}
	}
}
