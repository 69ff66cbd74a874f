package skillfile

import (
	"testing"

	"github.com/megagit/megagit/lifecycle"
)

func TestWithoutEvidenceUndoesWithEvidence(t *testing.T) {
	for _, raw := range []string{
		"---\nname: a\ndescription: The a skill. Use when a.\n---\n# A\n",
		"---\r\nname: a\r\ndescription: x\r\nlicense: MIT\r\n---\r\nbody\r\n",
		"---\nname: a\ndescription: >\n  folded\n  text\n---\n",
	} {
		f, err := Parse("SKILL.md", []byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		e := lifecycle.ColdStart()
		e.HelpfulCount = 3
		e.HelpfulContexts = []string{"ctx"}
		with, err := f.WithEvidence(e)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Parse("SKILL.md", with)
		if err != nil {
			t.Fatal(err)
		}
		back, err := g.WithoutEvidence()
		if err != nil || string(back) != raw {
			t.Errorf("round trip of %q: got %q, %v", raw, back, err)
		}
	}
}
