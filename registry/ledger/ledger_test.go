package ledger

import (
	"strings"
	"testing"
	"time"
)

const goodLine = `{"id":"01JB0000000000000000000001","skill":"a","verdict":"HELPFUL","source":"explicit","outcome":1,"at":"2026-01-01T00:00:00Z"}`

func TestParseLedgerSkipsJunkKeepsGoodLines(t *testing.T) {
	second := strings.Replace(goodLine, "0001", "0002", 1)
	tests := []struct {
		name     string
		data     string
		good     int
		problems int
	}{
		{"empty", "", 0, 0},
		{"one line no newline", goodLine, 1, 0},
		{"torn last line", goodLine + "\n" + goodLine[:40], 1, 1},
		{"junk in the middle", goodLine + "\nnot json\n" + second + "\n", 2, 1},
		{"conflict markers", "<<<<<<< HEAD\n" + goodLine + "\n=======\n" + second + "\n>>>>>>> x\n", 2, 3},
		{"duplicate id from a union merge counts once", goodLine + "\n" + goodLine + "\n", 1, 0},
		{"unknown verdict", strings.Replace(goodLine, "HELPFUL", "GREAT", 1), 0, 1},
		{"unknown field", strings.Replace(goodLine, `"skill"`, `"extra":1,"skill"`, 1), 0, 1},
		{"bad skill name", strings.Replace(goodLine, `"skill":"a"`, `"skill":"../x"`, 1), 0, 1},
		{"another skill's verdict", goodLine + "\n" + strings.Replace(second, `"skill":"a"`, `"skill":"b"`, 1), 1, 1},
		{"dated in year 9999", goodLine + "\n" + strings.Replace(second, "2026-01-01", "9999-01-01", 1), 1, 1},
		{"a clock an hour ahead counts", goodLine + "\n" + strings.Replace(second, "2026-01-01T00", "2026-01-02T01", 1), 2, 0},
	}
	defer func(c func() time.Time) { clock = c }(clock)
	clock = func() time.Time { return time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, problems := Parse("a.jsonl", []byte(tt.data))
			if len(entries) != tt.good || len(problems) != tt.problems {
				t.Fatalf("got %d entries, %d problems (%v); want %d, %d", len(entries), len(problems), problems, tt.good, tt.problems)
			}
			for _, p := range problems {
				if !strings.HasPrefix(p, "a.jsonl:") {
					t.Errorf("problem does not name the file and line: %s", p)
				}
			}
		})
	}
}

func TestLedgerOwner(t *testing.T) {
	for file, want := range map[string]string{
		".megagit/ledger/alpha.jsonl":                         "alpha",
		".megagit/ledger/native/tools+lint@" + sha + ".jsonl": "tools:lint",
		".megagit/ledger/native/mine@" + sha + ".jsonl":       "mine",
		"": "", "f": "",
	} {
		if got := owner(file); got != want {
			t.Errorf("owner(%q) = %q, want %q", file, got, want)
		}
	}
}

const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestSortEntriesTimeThenID(t *testing.T) {
	a := Entry{ID: "B", At: "2026-01-01T00:00:00Z"}
	b := Entry{ID: "A", At: "2026-01-01T00:00:00Z"}
	c := Entry{ID: "C", At: "2025-01-01T00:00:00Z"}
	es := []Entry{a, b, c}
	Sort(es)
	if es[0].ID != "C" || es[1].ID != "A" || es[2].ID != "B" {
		t.Fatalf("order %v", es)
	}
}

func FuzzParseLedger(f *testing.F) {
	f.Add([]byte(goodLine + "\n"))
	f.Add([]byte(goodLine + "\n{\"id\":"))
	f.Add([]byte("<<<<<<<\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, problems := Parse("f", data)
		// Every non-blank line is either an entry (or a duplicate) or a problem.
		lines := 0
		for _, l := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(l) != "" {
				lines++
			}
		}
		if len(entries)+len(problems) > lines {
			t.Fatalf("%d entries + %d problems from %d lines", len(entries), len(problems), lines)
		}
		// Re-rendering good entries parses back to the same ids.
		again, p2 := Parse("f", Format(entries))
		if len(again) != len(entries) || len(p2) != 0 {
			t.Fatalf("round trip: %d -> %d entries, problems %v", len(entries), len(again), p2)
		}
	})
}
