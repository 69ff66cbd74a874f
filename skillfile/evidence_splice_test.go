package skillfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// trickyFrontmatter are hand-made corner cases; they also seed the fuzzer.
var trickyFrontmatter = []string{
	"---\nmega_meta: {helpful_count: 1,\n  status: active}\nname: x\n---\n",
	"---\nmega_meta: {helpful_count: 1,\nstatus: active}\nname: x\n---\n",
	"---\nmega_meta:\n  notes: |\n    line\n    # not a comment\n\nname: x\n---\n",
	"---\nmega_meta:\n  notes: |\n    line\n    # not a comment\n---\n",
	"---\nmega_meta:\n  notes: |+\n    line\n\n\n---\n",
	"---\nmega_meta:\n  notes: |+\n    line\n\n\nname: x\n---\n",
	"---\nmega_meta:\n  notes: |+\n    line\n\n\n# c\n\nname: x\n---\n",
	"---\nmega_meta:\n  notes: >+\n    line\n\n    more\n\n  # deep\n\n# c\n\nname: x\n---\n",
	"---\nname: x\ndesc: |+\n  keep\n\n\n---\n",
	"---\nname: x # c\n  # indented comment\n---\n",
	"---\nmega_meta: &a\n  helpful_count: 1\nname: x\n---\n",
	"---\n&a mega_meta:\n  helpful_count: 1\nname: x\n---\n",
	"---\n\"mega_meta\":\n  helpful_count: 1\nname: x\n---\n",
	"---\nname: x\nmega_meta:\n  helpful_count: 1\n  # trailing inner comment\n\n# top comment\n---\n",
	"---\nname: \"multi\nline at col 0\"\nmega_meta:\n  a: 1\n---\n",
	"---\nmega_meta:\n  helpful_count: 1\n  x: \"a\n  # b\"\n---\n",
	"---\r\nname: x\r\nmega_meta:\r\n  a: \"q\r\n  r\"\r\n---\r\n",
	"--- \t\nname: x\n---  \nbody",
	"---\nname: x\n...\n# comment\n---\n",
	"---\nmega_meta:\n  z: !custom tagged\n  y: !!binary aGVsbG8=\n---\n",
	"---\nmega_meta:\n  a: &anc 1\n  \"\": empty key\n---\n",
	"---\nmega_meta:\n  helpful_count: 1\n  helpful_count: 2\n  x: 1\n  x: 2\n---\n",
	"---\nmega_meta:\n\n# only a comment\nname: x\n---\n",
	"---\n# just a comment\n---\n",
	"---\n  a: 1\n  mega_meta:\n    b: 2\n  c: 3\n---\n",
}

func TestSkillFileWithEvidenceTricky(t *testing.T) {
	for _, data := range trickyFrontmatter {
		t.Run(data, func(t *testing.T) {
			checkRoundTrip(t, "t.md", []byte(data), sampleEvidence())
		})
	}
}

// FuzzSkillFileRoundTrip: whatever parses must take new evidence without
// losing a byte outside mega_meta, and read that evidence back.
func FuzzSkillFileRoundTrip(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "frontmatter", "*.md"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data, "validate the signature", uint8(3))
		}
	}
	for _, data := range trickyFrontmatter {
		f.Add([]byte(data), "", uint8(0))
	}
	for _, inner := range []string{ // fragments for the mega_meta block built from ctx
		"  notes: |+\n    a\n\n  # c\n\n# d\n",
		"  x: \"a\n# b\"\n  # c",
		"  y:\n  - 1\n  -  [2, {z: 3}]\n\n#",
		"  status: suspect\n  helpful_contexts:\n    - >\n      folded\n\n",
	} {
		f.Add([]byte("---\n---\n"), inner, uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, ctx string, n uint8) {
		fuzzRoundTrip(t, data, ctx, n)
		// ctx also goes inside a mega_meta block, where the splice is hardest.
		fuzzRoundTrip(t, []byte("---\nname: x\nmega_meta:\n  helpful_count: 1\n"+ctx+"\nlicense: MIT\n---\nbody\n"), "c", n)
	})
}

func fuzzRoundTrip(t *testing.T, data []byte, ctx string, n uint8) {
	sf, err := Parse("f.md", data)
	if err != nil {
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Fatalf("error %v is not a *FieldError", err)
		}
		return
	}
	_, _, _, _ = sf.Name(), sf.Description(), sf.Headings(), sf.Triggers()
	_, _ = sf.Evidence()
	_ = Lint("x", "f.md", data)
	e := sampleEvidence()
	e.HelpfulContexts = []string{ctx}
	e.HelpfulCount = int(n)
	if _, err := sf.WithEvidence(e); err != nil {
		if errors.Is(err, errSpliceCheck) {
			t.Fatalf("%v\ninput %q", err, data)
		}
		return // a refusal the user can act on (flow mapping, scalar mega_meta, ...)
	}
	checkRoundTrip(t, "f.md", data, e)
	if old, err := sf.Evidence(); err == nil {
		checkRoundTrip(t, "f.md", data, old)
	}
}
