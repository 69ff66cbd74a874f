package ledger

import (
	"fmt"
	"strings"
	"testing"
)

func line(id, at string) string {
	return fmt.Sprintf(`{"id":"%s","skill":"s","verdict":"HELPFUL","source":"explicit","outcome":1,"at":"%s"}`, id, at)
}

func TestMerge(t *testing.T) {
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
			got, problems := Merge("", []byte(tt.base), []byte(tt.ours), []byte(tt.theirs))
			if string(got) != tt.want || len(problems) != tt.problems {
				t.Fatalf("got\n%s(problems %v)\nwant\n%s", got, problems, tt.want)
			}
		})
	}
}

// FuzzMerge: whatever the three versions hold, the merge keeps each
// readable verdict at most once, keeps every verdict both sides still have
// or one side added, and never drops one of our unreadable lines.
func FuzzMerge(f *testing.F) {
	l1 := line("01J00000000000000000000001", "2026-01-01T00:00:01Z")
	l2 := line("01J00000000000000000000002", "2026-01-01T00:00:02Z")
	f.Add([]byte(l1+"\n"), []byte(l1+"\n"+l2+"\n"), []byte(""))
	f.Add([]byte(""), []byte("junk\n"+l1), []byte(l2+"\n{\"id\":"))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		merged, _ := Merge("", base, ours, theirs)
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
