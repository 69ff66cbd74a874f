package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/megagit/megagit/learn/history"
)

// TestSessionsRead: every session written is read by megagit's own
// readers as one unspoiled use per skill, of the prompt as typed.
func TestSessionsRead(t *testing.T) {
	home := t.TempDir()
	cwd := filepath.Join(t.TempDir(), "__")
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	want := map[string]string{"claude": history.HowSkillTool, "codex": history.HowRead, "gemini": history.HowActivate}
	for agent, how := range want {
		t.Run(agent, func(t *testing.T) {
			s := session{Key: "q-" + agent, Prompt: `turn <report>.pdf's "tables" into csv & sum them`, Skills: []string{"pdf-tables", "csv-report"},
				Agent: agent, At: at, Cwd: cwd, SkillFile: func(n string) string { return filepath.Join(cwd, "skills", n, "SKILL.md") }}
			p, err := writeSession(home, s)
			if err != nil {
				t.Fatal(err)
			}
			sessions, err := history.Sessions(history.Options{Home: home, Agents: []string{agent}, Env: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			if len(sessions) != 1 || sessions[0].Path != p {
				t.Fatalf("sessions listed: %+v, want %s", sessions, p)
			}
			res, err := history.Scan(sessions[0])
			if err != nil {
				t.Fatal(err)
			}
			if res.Junk != 0 {
				t.Errorf("%d junk lines", res.Junk)
			}
			if len(res.Uses) != len(s.Skills) {
				t.Fatalf("uses %+v, want one per skill", res.Uses)
			}
			for i, u := range res.Uses {
				if u.Skill != s.Skills[i] || u.Prompt != s.Prompt || u.Spoiled || u.How != how || !u.Time.After(at.Add(-time.Second)) {
					t.Errorf("use %d: %+v", i, u)
				}
				if agent == "codex" && u.SkillPath != s.SkillFile(s.Skills[i]) {
					t.Errorf("codex read %q, want %q", u.SkillPath, s.SkillFile(s.Skills[i]))
				}
			}
		})
	}
}

func TestSplitHalves(t *testing.T) {
	var qs []query
	for _, id := range []string{"a", "b", "c", "d", "e", "n1", "n2"} {
		q := query{ID: id, Query: id, Gold: []string{"s"}, Kind: "in"}
		if id[0] == 'n' {
			q.Gold, q.Kind = []string{}, "null"
		}
		qs = append(qs, q)
	}
	asked, held := split(qs)
	if len(asked) != 2 || len(held) != 5 {
		t.Fatalf("asked %d, held out %d; want 2 and 5 (both nulls held out)", len(asked), len(held))
	}
	again, _ := split(append([]query{qs[4], qs[3]}, qs[:3]...))
	for i := range asked {
		if again[i].ID != asked[i].ID {
			t.Errorf("the split depends on the file's order")
		}
	}
}
