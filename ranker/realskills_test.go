package ranker

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/registry"
)

// realDocs are the published skills of the repository's testdata
// (testdata/realskills) as ranker documents, read by the registry's loader
// exactly as `megagit route` sees a registry's skills.
func realDocs(t testing.TB) []Doc {
	t.Helper()
	skills, problems, err := registry.LoadDir(filepath.Join("..", "testdata", "realskills", "skills"))
	if err != nil || len(problems) > 0 || len(skills) < 30 {
		t.Fatalf("testdata/realskills: %d skills, problems %v, err %v", len(skills), problems, err)
	}
	docs := make([]Doc, 0, len(skills))
	for _, sk := range skills {
		docs = append(docs, Doc{
			ID: sk.Name, Path: sk.Path, Description: sk.File.Description(), Body: sk.File.Body(),
			Headings: sk.File.Headings(), Triggers: sk.File.Triggers(), Weight: 1, Status: StatusActive,
		})
	}
	return docs
}

// realQueries are prompts drawn from the skills' own text (each
// description's first sentence, each heading, each trigger line) and a few
// that fit none of them.
func realQueries(docs []Doc) []string {
	qs := []string{"", "hello there", "what is the capital of portugal", "zebra quokka", "thanks, that worked"}
	for _, d := range docs {
		first, _, _ := strings.Cut(d.Description, ". ")
		qs = append(qs, first)
		qs = append(qs, d.Headings...)
		qs = append(qs, d.Triggers...)
	}
	return qs
}

// TestRealSkillsFindThemselves: among published skills written by many
// hands, a prompt that is a skill's own description ranks that skill
// first and dynamic K emits it first, and one that is its name ranks it
// in the top three.
func TestRealSkillsFindThemselves(t *testing.T) {
	docs := realDocs(t)
	ix := NewIndex(docs, DefaultConfig())
	for i, d := range docs {
		r := ix.Rank(d.Description, Options{})
		if r.Ranked[0].ID != d.ID {
			t.Errorf("description of %s: %s ranks first", d.ID, r.Ranked[0].ID)
		}
		if len(r.Emitted) == 0 || r.Emitted[0] != i {
			t.Errorf("description of %s: emitted %v (k=%d, %s), want it first", d.ID, r.Emitted, r.K, r.Reason)
		}
		r = ix.Rank(strings.ReplaceAll(d.ID, "-", " "), Options{})
		if top := r.Ranked[:3]; top[0].ID != d.ID && top[1].ID != d.ID && top[2].ID != d.ID {
			t.Errorf("name of %s: top three %s, %s, %s", d.ID, top[0].ID, top[1].ID, top[2].ID)
		}
	}
}
