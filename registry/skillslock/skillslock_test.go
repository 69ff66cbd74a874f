package skillslock

import (
	"strings"
	"testing"
)

func entry(commit, at string, files map[string]string) Entry {
	return Entry{Source: "https://example.com/s.git", Commit: commit, CommitTime: at, Path: "skills/x", Files: files}
}

func TestMergeLocks(t *testing.T) {
	old := entry("aaaa", "2026-01-01T00:00:00Z", map[string]string{"SKILL.md": "1"})
	newer := entry("bbbb", "2026-02-01T00:00:00Z", map[string]string{"SKILL.md": "2"})
	older := entry("cccc", "2025-12-01T00:00:00Z", map[string]string{"SKILL.md": "3"})
	sameTime := entry("dddd", "2026-01-01T00:00:00Z", map[string]string{"SKILL.md": "4"})
	lock := func(m map[string]Entry) Lock { return Lock{Skills: m} }
	tests := []struct {
		name               string
		base, ours, theirs map[string]Entry
		want               map[string]Entry
	}{
		{"only theirs changed", map[string]Entry{"x": old}, map[string]Entry{"x": old}, map[string]Entry{"x": newer}, map[string]Entry{"x": newer}},
		{"only ours changed", map[string]Entry{"x": old}, map[string]Entry{"x": newer}, map[string]Entry{"x": old}, map[string]Entry{"x": newer}},
		{"both changed: the newer commit wins (theirs)", map[string]Entry{"x": old}, map[string]Entry{"x": older}, map[string]Entry{"x": newer}, map[string]Entry{"x": newer}},
		{"both changed: the newer commit wins (ours)", map[string]Entry{"x": old}, map[string]Entry{"x": newer}, map[string]Entry{"x": older}, map[string]Entry{"x": newer}},
		{"both changed at the same time: the larger hash", nil, map[string]Entry{"x": sameTime}, map[string]Entry{"x": old}, map[string]Entry{"x": sameTime}},
		{"added on each side", nil, map[string]Entry{"x": old}, map[string]Entry{"y": newer}, map[string]Entry{"x": old, "y": newer}},
		{"removed by theirs", map[string]Entry{"x": old}, map[string]Entry{"x": old}, nil, map[string]Entry{}},
		{"removed by ours", map[string]Entry{"x": old}, nil, map[string]Entry{"x": old}, map[string]Entry{}},
		{"removed here, updated there: the update stays", map[string]Entry{"x": old}, nil, map[string]Entry{"x": newer}, map[string]Entry{"x": newer}},
		{"updated here, removed there: the update stays", map[string]Entry{"x": old}, map[string]Entry{"x": newer}, nil, map[string]Entry{"x": newer}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Merge(lock(tt.base), lock(tt.ours), lock(tt.theirs))
			if len(got.Skills) != len(tt.want) {
				t.Fatalf("got %v, want %v", got.Skills, tt.want)
			}
			for n, w := range tt.want {
				if !got.Skills[n].Equal(w) {
					t.Errorf("%s: got %+v, want %+v", n, got.Skills[n], w)
				}
			}
			// Symmetric: the other machine merges to the same lock.
			back := Merge(lock(tt.base), lock(tt.theirs), lock(tt.ours))
			if string(back.Format()) != string(got.Format()) {
				t.Errorf("not symmetric:\n%s\n%s", got.Format(), back.Format())
			}
		})
	}
}

func TestLockFormatIsStable(t *testing.T) {
	l := Lock{Skills: map[string]Entry{
		"zeta":  entry("b", "2026-01-01T00:00:00Z", map[string]string{"b.txt": "2", "SKILL.md": "1", "a/c.py": "3"}),
		"alpha": entry("a", "2026-01-01T00:00:00Z", map[string]string{"SKILL.md": "1"}),
	}}
	out := string(l.Format())
	if !strings.HasPrefix(out, "{\n  \"version\": 2,\n  \"skills\": {\n    \"alpha\": {") || !strings.HasSuffix(out, "}\n") {
		t.Fatalf("format:\n%s", out)
	}
	if strings.Index(out, `"SKILL.md"`) > strings.Index(out, `"a/c.py"`) || strings.Index(out, `"a/c.py"`) > strings.Index(out, `"b.txt"`) {
		t.Fatalf("files not sorted:\n%s", out)
	}
	back, err := Parse([]byte(out))
	if err != nil || string(back.Format()) != out {
		t.Fatalf("round trip: %v\n%s", err, back.Format())
	}
	if _, err := Parse([]byte(`{"version": 3, "skills": {}}`)); err == nil {
		t.Fatal("a newer version was read")
	}
	if _, err := Parse([]byte(`{"skills": {}, "extra": 1}`)); err == nil {
		t.Fatal("an unknown field was read")
	}
	if l, err := Parse(nil); err != nil || len(l.Skills) != 0 {
		t.Fatalf("empty: %v %v", l, err)
	}
}

func TestFileHashIgnoresEvidence(t *testing.T) {
	bare := "---\nname: x\ndescription: X. Use when testing.\n---\n# X\n"
	withMeta := "---\nname: x\ndescription: X. Use when testing.\nmega_meta:\n  helpful_count: 2\n---\n# X\n"
	if FileHash("SKILL.md", []byte(bare)) != FileHash("SKILL.md", []byte(withMeta)) {
		t.Fatal("mega_meta changed SKILL.md's hash")
	}
	if FileHash("notes.md", []byte(bare)) == FileHash("notes.md", []byte(withMeta)) {
		t.Fatal("another file's bytes are hashed as they are")
	}
	if FileHash("SKILL.md", []byte(bare)) == FileHash("SKILL.md", []byte(bare+"more\n")) {
		t.Fatal("a body edit did not change the hash")
	}
}

func TestDiffHashes(t *testing.T) {
	d := DiffHashes(map[string]string{"a": "1", "b": "2", "c": "3"}, map[string]string{"a": "1", "b": "9", "d": "4"})
	if strings.Join(d.Added, ",") != "d" || strings.Join(d.Removed, ",") != "c" || strings.Join(d.Changed, ",") != "b" || d.Empty() {
		t.Fatalf("%+v", d)
	}
	if !DiffHashes(map[string]string{"a": "1"}, map[string]string{"a": "1"}).Empty() {
		t.Fatal("same files differ")
	}
}

// TestVersionOneStillReads: a lock written before entries had a ref kind
// and an install mode reads, and is written back in the new format.
func TestVersionOneStillReads(t *testing.T) {
	l, err := Parse([]byte(`{"version": 1, "skills": {"a": {"source": "s", "commit": "c", "commit_time": "", "path": ".", "files": {}}}}`))
	if err != nil || l.Skills["a"].Source != "s" || l.Skills["a"].Pinned() {
		t.Fatalf("%+v, %v", l, err)
	}
	if !strings.HasPrefix(string(l.Format()), "{\n  \"version\": 2,") {
		t.Fatalf("%s", l.Format())
	}
}
