package stop

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/registry/ledger"
)

// TestSkillToolVerdicts reads skills the assistant loaded with Claude
// Code's Skill tool from a transcript, and checks which tags about them
// become verdicts: those after the load, the first per skill, not a
// subagent's load; everything else is logged.
func TestSkillToolVerdicts(t *testing.T) {
	tr := readFixture(t, "skill-tool-session.jsonl", "s-tool")
	if len(tr.Turns) != 2 {
		t.Fatalf("%d turns, want 2", len(tr.Turns))
	}
	if got := [][]string{tr.Turns[0].Skills, tr.Turns[1].Skills}; !slices.Equal(got[0], []string{"webhook-signer"}) || !slices.Equal(got[1], []string{"pdf"}) {
		t.Fatalf("skills loaded per turn = %q, want [webhook-signer] [pdf] (the subagent's load left out)", got)
	}
	var logged []string
	logf := func(err error) { logged = append(logged, err.Error()) }
	sess := &hook.Session{ID: "s-tool"}
	got := explicitVerdicts(logf, sess, tr.Turns, nil)
	var vs []string
	for _, v := range got {
		vs = append(vs, fmt.Sprintf("%s=%s (%s)", v.Skill, v.Verdict, v.Context))
	}
	want := []string{
		"webhook-signer=HELPFUL (our stripe webhooks get rejected since the deploy)",
		"pdf=NEUTRAL (now read the spec pdf)",
	}
	if !slices.Equal(vs, want) {
		t.Errorf("verdicts = %q, want %q", vs, want)
	}
	log := strings.Join(logged, "\n")
	if strings.Count(log, "ignored tag for pdf") != 1 || strings.Count(log, "ignored tag for docker-slim") != 1 {
		t.Errorf("the tag before pdf's load and the subagent's docker-slim are not both logged:\n%s", log)
	}

	// A second run on the same transcript: every tag was processed.
	if again := explicitVerdicts(logf, sess, tr.Turns, nil); len(again) != 0 {
		t.Errorf("second run gave %d verdicts", len(again))
	}
	// A verdict already in the ledger for this session is not given twice.
	ledgers := map[string][]ledger.Entry{"webhook-signer": {{Session: "s-tool", Source: ledger.SourceExplicit}}}
	if fresh := explicitVerdicts(logf, &hook.Session{ID: "s-tool"}, tr.Turns, ledgers); len(fresh) != 1 || fresh[0].Skill != "pdf" {
		t.Errorf("with webhook-signer in the ledger: %+v, want pdf only", fresh)
	}
}

func TestFileMentions(t *testing.T) {
	dir := t.TempDir()
	// The needle straddles the 256 KiB block boundary.
	data := strings.Repeat("x", 256<<10-5) + "<skill-used" + strings.Repeat("y", 100)
	for name, tc := range map[string]struct {
		data string
		want bool
	}{
		"across blocks": {data, true},
		"absent":        {strings.Repeat("z", 600<<10), false},
		"empty":         {"", false},
		"short":         {`{"text":"<skill-used name=\"a\"/>"}`, true},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := fileMentions(p, "<skill-used"); err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", name, got, err, tc.want)
		}
	}
	if _, err := fileMentions(filepath.Join(dir, "missing"), "x"); err == nil {
		t.Error("a missing file is not an error")
	}
}
