package history

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixtureHome is testdata/home, the real agents' files (testdata/README.md).
func fixtureHome(t testing.TB) string {
	t.Helper()
	home, err := filepath.Abs(filepath.Join("testdata", "home"))
	if err != nil {
		t.Fatal(err)
	}
	home, err = filepath.EvalSymlinks(home)
	if err != nil {
		t.Fatal(err)
	}
	return home
}

// noEnv is an environment with no variable set.
func noEnv(string) string { return "" }

// use is what a table expects of one Use.
type use struct {
	skill, how, prompt string
	spoiled            bool
	skillPath          string // "": not checked
}

func (u use) String() string {
	return u.skill + " " + u.how + " " + u.prompt + map[bool]string{true: " spoiled"}[u.spoiled]
}

func got(uses []Use) []use {
	var out []use
	for _, u := range uses {
		out = append(out, use{skill: u.Skill, how: u.How, prompt: u.Prompt, spoiled: u.Spoiled})
	}
	return out
}

func checkUses(t *testing.T, uses []Use, want []use) {
	t.Helper()
	g := got(uses)
	w := slices.Clone(want)
	for i := range w {
		w[i].skillPath = ""
	}
	if !slices.Equal(g, w) {
		t.Fatalf("uses:\n%s\nwant:\n%s", join(g), join(w))
	}
	for i, u := range want {
		if u.skillPath != "" && uses[i].SkillPath != u.skillPath {
			t.Errorf("use %d: SkillPath %q, want %q", i, uses[i].SkillPath, u.skillPath)
		}
	}
}

func join(us []use) string {
	var s []string
	for _, u := range us {
		s = append(s, "  "+u.String())
	}
	return strings.Join(s, "\n")
}

// TestFixtures reads every session the real agents wrote and checks the
// uses found, how, and what spoiled them (the README's table says why).
func TestFixtures(t *testing.T) {
	const (
		claudeProj = ".claude/projects/-home-user-proj/"
		codexDay   = ".codex/sessions/2026/12/02/"
		geminiChat = ".gemini/tmp/proj/chats/"
	)
	tests := []struct {
		agent, file string
		want        []use
	}{
		// Skill, then Bash exit 3, then "no, that's wrong".
		{AgentClaude, claudeProj + "a4d66de2-1a7e-4c98-a203-965932438dd5.jsonl", []use{
			{"pdf-tables", HowSkillTool, "extract the tables from report.pdf into csv", true, ""}}},
		// Skill, then a Bash the permissions refused: it did not run.
		{AgentClaude, claudeProj + "627118f1-37ea-40d3-9099-08f6c238e66d.jsonl", []use{
			{"pdf-tables", HowSkillTool, "extract the tables from report.pdf into csv", false, ""}}},
		// Skill, Bash exit 0, then "that's not right".
		{AgentClaude, claudeProj + "948ad8dc-fbd7-485e-9d04-40dcda931fd3.jsonl", []use{
			{"pdf-tables", HowSkillTool, "get the tables of q3.pdf", true, ""}}},
		// A plugin's skill by the Skill tool (then exit 2), a Read of a
		// SKILL.md, the plugin's skill as a slash command.
		{AgentClaude, claudeProj + "6555a785-0d5b-4c72-a6d4-0f875c18f5a1.jsonl", []use{
			{"docs-kit:pdf-forms", HowSkillTool, "fill the pdf form in tax.pdf", true, ""},
			{"csv-clean", HowRead, "thanks. now the messy csv please", false, "/home/user/.claude/skills/csv-clean/SKILL.md"},
			{"docs-kit:pdf-forms", HowSlash, "w2.pdf", false, ""}}},
		// A slash command; a refused Read of a SKILL.md (it loaded
		// nothing); a subagent's Skill (not the user's: absent); /compact,
		// a built-in command, named for the caller to filter.
		{AgentClaude, claudeProj + "5067ca08-18a0-4c1f-a356-8859602a4782.jsonl", []use{
			{"pdf-tables", HowSlash, "report.pdf", false, ""},
			{"csv-clean", HowRead, "now the messy csv please", true, "/home/user/.claude/skills/csv-clean/SKILL.md"},
			{"compact", HowSlash, "", false, ""}}},
		// cat of a SKILL.md (relative to the session's folder), then exit
		// 4, then "no, that's wrong".
		{AgentCodex, codexDay + "rollout-2026-12-02T06-36-06-01a23577-b179-7b91-b322-14991b2b2334.jsonl", []use{
			{"csv-report", HowRead, "summarise data.csv into a report", true, "/home/user/proj/.agents/skills/csv-report/SKILL.md"}}},
		// $release-cut, then a sed of its SKILL.md in the next turn.
		{AgentCodex, codexDay + "rollout-2026-12-02T06-36-22-01a23577-f02d-7de3-be37-02ca2aa87548.jsonl", []use{
			{"release-cut", HowMention, "use $release-cut for v1.2", false, "/home/user/.agents/skills/release-cut/SKILL.md"},
			{"release-cut", HowRead, "and write the release notes too", false, "/home/user/.agents/skills/release-cut/SKILL.md"}}},
		{AgentCodex, codexDay + "rollout-2026-12-02T06-37-38-01a23579-1877-7232-9256-b1f0c90b9cea.jsonl", nil},
		// Commands that succeed, then "wrong, …".
		{AgentCodex, codexDay + "rollout-2026-12-02T06-42-20-01a2357d-67f5-7ea0-aa9a-c307d70fa7b3.jsonl", []use{
			{"csv-report", HowRead, "write a report for sales.csv", true, ""}}},
		// activate_skill, then exit 5; resumed (the $set rewrite) with a
		// correction: one use, not two.
		{AgentGemini, geminiChat + "session-2026-12-02T06-36-8e731e22.jsonl", []use{
			{"csv-report", HowActivate, "summarise data.csv into a report", true, ""}}},
		// read_file of a SKILL.md, and a cat of another (relative to the
		// project's .project_root).
		{AgentGemini, geminiChat + "session-2026-12-02T06-36-c190803a.jsonl", []use{
			{"release-cut", HowRead, "cut the release v2.0", false, "/home/user/.agents/skills/release-cut/SKILL.md"},
			{"csv-report", HowRead, "cut the release v2.0", false, "/home/user/proj/.agents/skills/csv-report/SKILL.md"}}},
		// activate_skill, exit 0; resumed with "nope, …".
		{AgentGemini, geminiChat + "session-2026-12-02T06-42-379890c7.jsonl", []use{
			{"csv-report", HowActivate, "make a report of sales.csv", true, ""}}},
	}
	home := fixtureHome(t)
	for _, tc := range tests {
		t.Run(tc.agent+"/"+filepath.Base(tc.file), func(t *testing.T) {
			s := Session{Agent: tc.agent, Path: filepath.Join(home, filepath.FromSlash(tc.file))}
			r, err := Scan(s)
			if err != nil {
				t.Fatal(err)
			}
			if r.Junk+r.Long != 0 || r.Unread != 0 {
				t.Errorf("skipped %d junk and %d long lines, %d bytes unread", r.Junk, r.Long, r.Unread)
			}
			checkUses(t, r.Uses, tc.want)
			for _, u := range r.Uses {
				if u.Agent != tc.agent || u.Path != s.Path || u.Cwd != "/home/user/proj" || u.Session == "" || u.Time.IsZero() {
					t.Errorf("use %+v: agent, path, cwd, session or time missing", u)
				}
			}
		})
	}
}

// TestFixtureSessions checks the ids and times the files give their uses.
func TestFixtureSessions(t *testing.T) {
	home := fixtureHome(t)
	ss, err := Sessions(Options{Home: home, Env: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 12 {
		t.Fatalf("%d sessions, want 12 (no subagent transcript)", len(ss))
	}
	byFile := map[string][]Use{}
	for _, s := range ss {
		if strings.Contains(s.Path, "subagents") {
			t.Errorf("a subagent's transcript is listed: %s", s.Path)
		}
		uses, err := Read(s)
		if err != nil {
			t.Fatal(err)
		}
		byFile[filepath.Base(s.Path)] = uses
	}
	for _, tc := range []struct {
		file, session, time string
	}{
		{"a4d66de2-1a7e-4c98-a203-965932438dd5.jsonl", "a4d66de2-1a7e-4c98-a203-965932438dd5", "2026-12-02T06:35:13.277Z"},
		{"rollout-2026-12-02T06-36-22-01a23577-f02d-7de3-be37-02ca2aa87548.jsonl", "01a23577-f02d-7de3-be37-02ca2aa87548", "2026-12-02T06:36:22.550Z"},
		// The resume rewrote the list dated 06:36:53; the prompt keeps
		// the time it was first written.
		{"session-2026-12-02T06-36-8e731e22.jsonl", "8e731e22-65e0-471e-90b1-f44ca27952f6", "2026-12-02T06:36:50.753Z"},
	} {
		uses := byFile[tc.file]
		want, _ := time.Parse(time.RFC3339Nano, tc.time)
		if len(uses) == 0 || uses[0].Session != tc.session || !uses[0].Time.Equal(want) {
			t.Errorf("%s: %+v, want session %s at %s", tc.file, uses, tc.session, tc.time)
		}
	}
	// The subagent's transcript is not a session file of the user's.
	sub := filepath.Join(home, ".claude/projects/-home-user-proj/5067ca08-18a0-4c1f-a356-8859602a4782/subagents/agent-a83608bdcc8d15493.jsonl")
	if _, err := Read(Session{Agent: AgentClaude, Path: sub}); err == nil {
		t.Error("Read of a subagent's transcript: no error")
	}
}
