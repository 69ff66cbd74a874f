package registry

import (
	"strings"
	"testing"
)

func entry(commit, at string, files map[string]string) LockEntry {
	return LockEntry{Source: "https://example.com/s.git", Commit: commit, CommitTime: at, Path: "skills/x", Files: files}
}

func TestMergeLocks(t *testing.T) {
	old := entry("aaaa", "2026-01-01T00:00:00Z", map[string]string{"SKILL.md": "1"})
	newer := entry("bbbb", "2026-02-01T00:00:00Z", map[string]string{"SKILL.md": "2"})
	older := entry("cccc", "2025-12-01T00:00:00Z", map[string]string{"SKILL.md": "3"})
	sameTime := entry("dddd", "2026-01-01T00:00:00Z", map[string]string{"SKILL.md": "4"})
	lock := func(m map[string]LockEntry) Lock { return Lock{Skills: m} }
	tests := []struct {
		name               string
		base, ours, theirs map[string]LockEntry
		want               map[string]LockEntry
	}{
		{"only theirs changed", map[string]LockEntry{"x": old}, map[string]LockEntry{"x": old}, map[string]LockEntry{"x": newer}, map[string]LockEntry{"x": newer}},
		{"only ours changed", map[string]LockEntry{"x": old}, map[string]LockEntry{"x": newer}, map[string]LockEntry{"x": old}, map[string]LockEntry{"x": newer}},
		{"both changed: the newer commit wins (theirs)", map[string]LockEntry{"x": old}, map[string]LockEntry{"x": older}, map[string]LockEntry{"x": newer}, map[string]LockEntry{"x": newer}},
		{"both changed: the newer commit wins (ours)", map[string]LockEntry{"x": old}, map[string]LockEntry{"x": newer}, map[string]LockEntry{"x": older}, map[string]LockEntry{"x": newer}},
		{"both changed at the same time: the larger hash", nil, map[string]LockEntry{"x": sameTime}, map[string]LockEntry{"x": old}, map[string]LockEntry{"x": sameTime}},
		{"added on each side", nil, map[string]LockEntry{"x": old}, map[string]LockEntry{"y": newer}, map[string]LockEntry{"x": old, "y": newer}},
		{"removed by theirs", map[string]LockEntry{"x": old}, map[string]LockEntry{"x": old}, nil, map[string]LockEntry{}},
		{"removed by ours", map[string]LockEntry{"x": old}, nil, map[string]LockEntry{"x": old}, map[string]LockEntry{}},
		{"removed here, updated there: the update stays", map[string]LockEntry{"x": old}, nil, map[string]LockEntry{"x": newer}, map[string]LockEntry{"x": newer}},
		{"updated here, removed there: the update stays", map[string]LockEntry{"x": old}, map[string]LockEntry{"x": newer}, nil, map[string]LockEntry{"x": newer}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MergeLocks(lock(tt.base), lock(tt.ours), lock(tt.theirs))
			if len(got.Skills) != len(tt.want) {
				t.Fatalf("got %v, want %v", got.Skills, tt.want)
			}
			for n, w := range tt.want {
				if !got.Skills[n].Equal(w) {
					t.Errorf("%s: got %+v, want %+v", n, got.Skills[n], w)
				}
			}
			// Symmetric: the other machine merges to the same lock.
			back := MergeLocks(lock(tt.base), lock(tt.theirs), lock(tt.ours))
			if string(back.Format()) != string(got.Format()) {
				t.Errorf("not symmetric:\n%s\n%s", got.Format(), back.Format())
			}
		})
	}
}

func TestLockFormatIsStable(t *testing.T) {
	l := Lock{Skills: map[string]LockEntry{
		"zeta":  entry("b", "2026-01-01T00:00:00Z", map[string]string{"b.txt": "2", "SKILL.md": "1", "a/c.py": "3"}),
		"alpha": entry("a", "2026-01-01T00:00:00Z", map[string]string{"SKILL.md": "1"}),
	}}
	out := string(l.Format())
	if !strings.HasPrefix(out, "{\n  \"version\": 1,\n  \"skills\": {\n    \"alpha\": {") || !strings.HasSuffix(out, "}\n") {
		t.Fatalf("format:\n%s", out)
	}
	if strings.Index(out, `"SKILL.md"`) > strings.Index(out, `"a/c.py"`) || strings.Index(out, `"a/c.py"`) > strings.Index(out, `"b.txt"`) {
		t.Fatalf("files not sorted:\n%s", out)
	}
	back, err := ParseLock([]byte(out))
	if err != nil || string(back.Format()) != out {
		t.Fatalf("round trip: %v\n%s", err, back.Format())
	}
	if _, err := ParseLock([]byte(`{"version": 2, "skills": {}}`)); err == nil {
		t.Fatal("a newer version was read")
	}
	if _, err := ParseLock([]byte(`{"skills": {}, "extra": 1}`)); err == nil {
		t.Fatal("an unknown field was read")
	}
	if l, err := ParseLock(nil); err != nil || len(l.Skills) != 0 {
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
