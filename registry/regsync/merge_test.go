package regsync

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
)

func line(id, at string) string {
	return fmt.Sprintf(`{"id":"%s","skill":"s","verdict":"HELPFUL","source":"explicit","outcome":1,"at":"%s"}`, id, at)
}

func TestMergeLedger(t *testing.T) {
	const (
		id1 = "01J00000000000000000000001"
		id2 = "01J00000000000000000000002"
		id3 = "01J00000000000000000000003"
		id4 = "01J00000000000000000000004"
	)
	l1, l2 := line(id1, "2026-01-01T00:00:01Z"), line(id2, "2026-01-01T00:00:02Z")
	l3, l4 := line(id3, "2026-01-01T00:00:03Z"), line(id4, "2026-01-01T00:00:03Z")
	tests := []struct {
		name, base, ours, theirs, want string
		problems                       int
	}{
		{"both added: ours kept, theirs appended",
			l1 + "\n", l1 + "\n" + l3 + "\n", l1 + "\n" + l2 + "\n", l1 + "\n" + l3 + "\n" + l2 + "\n", 0},
		{"theirs appended sorted by time then id",
			"", "", l4 + "\n" + l3 + "\n" + l2 + "\n", l2 + "\n" + l3 + "\n" + l4 + "\n", 0},
		{"same verdict on both sides counts once",
			"", l2 + "\n", l2 + "\n", l2 + "\n", 0},
		{"a verdict reverted on their side stays reverted",
			l1 + "\n" + l2 + "\n", l1 + "\n" + l2 + "\n" + l3 + "\n", l1 + "\n", l1 + "\n" + l3 + "\n", 0},
		{"a verdict reverted on our side stays reverted",
			l1 + "\n" + l2 + "\n", l1 + "\n", l1 + "\n" + l2 + "\n" + l3 + "\n", l1 + "\n" + l3 + "\n", 0},
		{"junk from theirs is kept and reported",
			"", l1 + "\n", l1 + "\njunk\n", l1 + "\njunk\n", 1},
		{"a torn last line of ours stays as it is",
			"", l1 + "\n{\"id\":", l2 + "\n", l1 + "\n{\"id\":\n" + l2 + "\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := MergeLedger("", []byte(tt.base), []byte(tt.ours), []byte(tt.theirs))
			if string(got) != tt.want || len(problems) != tt.problems {
				t.Fatalf("got\n%s(problems %v)\nwant\n%s", got, problems, tt.want)
			}
		})
	}
}

func TestMergeContexts(t *testing.T) {
	// Nobody curated: the merged ledger's last three.
	got := mergeContexts([]string{"a"}, []string{"b"}, []string{"a"}, []string{"b"}, []string{"a", "b"})
	if strings.Join(got, ",") != "a,b" {
		t.Fatalf("derived: %v", got)
	}
	// A hand-curated side: ours, then theirs we lack, capped at three.
	got = mergeContexts([]string{"mine", "x"}, []string{"x", "y", "z"}, nil, []string{"x", "y", "z"}, nil)
	if strings.Join(got, ",") != "x,y,z" {
		t.Fatalf("curated: %v", got)
	}
	// A teammate's hand-written contexts are cleaned as a verdict's are.
	got = mergeContexts([]string{"mine"}, []string{"their\x1b[2J\nline", "\x00"}, nil, nil, nil)
	if strings.Join(got, "|") != "mine|their[2J line" {
		t.Fatalf("cleaned: %q", got)
	}
}

// A body edited on one side and verdicts on both: the edit is kept and
// mega_meta is a replay of the merged ledger.
func TestSyncBodyEditOneSide(t *testing.T) {
	team := newTeam(t, 2, "s")
	a, b := team[0], team[1]
	p := registrytest.SkillPath(a, "s")
	if err := os.WriteFile(p, []byte(registrytest.ReadFile(t, p)+"\nUse it carefully.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	registrytest.Git(t, a, "commit", "-qam", "edit s")
	registrytest.Verdict(t, a, "s", lifecycle.Harmful)
	syncOK(t, a, Options{})
	registrytest.Verdict(t, b, "s", lifecycle.Helpful)
	registrytest.Verdict(t, b, "s", lifecycle.Harmful)
	res := syncOK(t, b, Options{})
	if res.Action != SyncMerge {
		t.Fatalf("action %s", res.Action)
	}
	s, err := b.Skill("s")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.File.Body(), "Use it carefully.") {
		t.Fatal("lost the body edit")
	}
	ledgers, err := b.Ledgers()
	if err != nil {
		t.Fatal(err)
	}
	want := lifecycle.Replay(lifecycle.ColdStart(), registry.ReplayEvents(ledgers["s"]))
	if s.Evidence.HelpfulCount != 1 || s.Evidence.HarmfulCount != 2 || s.Evidence.ConsecutiveHarmful != want.ConsecutiveHarmful || s.Evidence.Status != want.Status {
		t.Fatalf("evidence %+v, want a replay %+v", s.Evidence, want)
	}
	if _, err := Sync(context.Background(), a, Options{}); err != nil {
		t.Fatal(err)
	}
	if registrytest.ReadFile(t, registrytest.SkillPath(a, "s")) != registrytest.ReadFile(t, registrytest.SkillPath(b, "s")) {
		t.Fatal("the two clones disagree after syncing")
	}
}

// FuzzMergeLedger: whatever the three versions hold, the merge keeps each
// readable verdict at most once, keeps every verdict both sides still have
// or one side added, and never drops one of our unreadable lines.
func FuzzMergeLedger(f *testing.F) {
	l1 := line("01J00000000000000000000001", "2026-01-01T00:00:01Z")
	l2 := line("01J00000000000000000000002", "2026-01-01T00:00:02Z")
	f.Add([]byte(l1+"\n"), []byte(l1+"\n"+l2+"\n"), []byte(""))
	f.Add([]byte(""), []byte("junk\n"+l1), []byte(l2+"\n{\"id\":"))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		merged, _ := MergeLedger("", base, ours, theirs)
		b, o, th := ledgerIDs(splitLedger("", base)), ledgerIDs(splitLedger("", ours)), ledgerIDs(splitLedger("", theirs))
		got := map[string]int{}
		for _, l := range splitLedger("", merged) {
			if l.ok {
				got[l.entry.ID]++
			}
		}
		for id, n := range got {
			if n > 1 {
				t.Fatalf("id %s %d times", id, n)
			}
		}
		for id := range o {
			if (th[id] || !b[id]) && got[id] == 0 {
				t.Fatalf("lost our verdict %s", id)
			}
		}
		for id := range th {
			if !b[id] && got[id] == 0 {
				t.Fatalf("lost their new verdict %s", id)
			}
		}
		for _, l := range splitLedger("", ours) {
			if !l.ok && !strings.Contains(string(merged), string(l.raw)) {
				t.Fatalf("dropped our unreadable line %q", l.raw)
			}
		}
	})
}
