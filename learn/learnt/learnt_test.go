package learnt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/local"
)

func rec(skill, prompt string, at time.Time) Learnt {
	return Learnt{Skill: skill, Prompt: prompt, Agent: "claude", Session: "s", How: "skill-tool", Time: at, Key: LearntKey("claude", "s", skill, prompt)}
}

// TestStore checks the store of learnt prompts: a dry run writes nothing,
// each use is kept once however often it comes, a skill keeps its
// LearntKept newest, a damaged line is skipped and counted, and Forget
// removes one skill's or all.
func TestStore(t *testing.T) {
	root := t.TempDir()
	ld := local.Open(root, time.Second)
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var recs []Learnt
	for i := range LearntKept + 10 {
		recs = append(recs, rec("pdf-tables", fmt.Sprintf("tables of report %d", i), t0.Add(time.Duration(i)*time.Hour)))
	}
	recs = append(recs, rec("csv-report", "summarise data.csv", t0))

	want := LearntKept + 1 // pdf-tables' 10 oldest never make it past the cap
	dry, err := AddLearnt(ld, recs, true)
	if err != nil || len(dry) != want {
		t.Fatalf("dry run: %d new, %v; want %d", len(dry), err, want)
	}
	if _, err := os.Stat(LearntPath(ld)); !os.IsNotExist(err) {
		t.Fatalf("a dry run wrote the store: %v", err)
	}
	added, err := AddLearnt(ld, append(recs, recs[0]), false)
	if err != nil || len(added) != want {
		t.Fatalf("first import: %d new, %v; want %d (the repeated use once)", len(added), err, want)
	}
	if again, err := AddLearnt(ld, recs, false); err != nil || len(again) != 0 {
		t.Fatalf("second import: %d new, %v; want none", len(again), err)
	}
	kept, bad, err := ReadLearnt(LearntPath(ld))
	if err != nil || bad != 0 {
		t.Fatal(bad, err)
	}
	n := map[string]int{}
	for _, r := range kept {
		n[r.Skill]++
		if r.Skill == "pdf-tables" && strings.HasSuffix(r.Prompt, " 0") {
			t.Error("the oldest of pdf-tables' prompts was kept past the cap")
		}
	}
	if n["pdf-tables"] != LearntKept || n["csv-report"] != 1 {
		t.Errorf("kept %v, want %d of pdf-tables and 1 of csv-report", n, LearntKept)
	}

	f, err := os.OpenFile(LearntPath(ld), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"skill":"x"}`)
	fmt.Fprintln(f, `not json`)
	f.Close()
	if _, bad, err := ReadLearnt(LearntPath(ld)); err != nil || bad != 2 {
		t.Errorf("damaged lines: %d counted, %v; want 2", bad, err)
	}

	if gone, err := Forget(ld, map[string]bool{"csv-report": true}); err != nil || gone != 1 {
		t.Errorf("forget csv-report: %d, %v", gone, err)
	}
	// That rewrite dropped the damaged lines; forgetting all removes the rest.
	if _, bad, _ := ReadLearnt(LearntPath(ld)); bad != 0 {
		t.Errorf("%d damaged line(s) survived a rewrite", bad)
	}
	if gone, err := Forget(ld, nil); err != nil || gone != LearntKept {
		t.Errorf("forget all: %d, %v; want %d", gone, err, LearntKept)
	}
	if _, err := os.Stat(filepath.Join(root, local.MachineDir, LearntFile)); !os.IsNotExist(err) {
		t.Errorf("forget all left the file: %v", err)
	}
}

func TestCleanLearnt(t *testing.T) {
	got := CleanLearnt("  pull the tables\n out, token ghp_abcdefghijklmnopqrstuvwxyz0123456789 \x1b[31m")
	if strings.Contains(got, "ghp_") || strings.ContainsAny(got, "\n\x1b") || !strings.HasPrefix(got, "pull the tables out") {
		t.Errorf("CleanLearnt = %q", got)
	}
}
