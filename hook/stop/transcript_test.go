package stop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFixture(t *testing.T, name, session string) Transcript {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := ReadClaudeTranscript(f, session)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestReadClaudeTranscript(t *testing.T) {
	tr := readFixture(t, "claude-session.jsonl", "sess-1")
	if tr.Skipped != 2 {
		t.Errorf("skipped %d lines, want 2 (the torn ones)", tr.Skipped)
	}
	var prompts []string
	for _, turn := range tr.Turns {
		prompts = append(prompts, turn.Prompt)
	}
	want := []string{
		"my go tests fail randomly on CI but pass on my laptop",
		"the docker image is 2GB, make the build smaller",
		`<skill-used name="docker-slim" verdict="HARMFUL" reason="typed by the user"/> ok, try again`,
	}
	if strings.Join(prompts, "|") != strings.Join(want, "|") {
		t.Fatalf("prompts = %q, want %q", prompts, want)
	}
	// Only assistant text carries tags: not the tool result (web page), the
	// Write tool's input, the subagent's text or the user's prompt.
	var tags []string
	for _, turn := range tr.Turns {
		for _, tx := range turn.Texts {
			for _, tag := range ParseTags(tx.Text) {
				tags = append(tags, tag.Name+"="+tag.Verdict+"@"+tx.Key)
			}
		}
	}
	wantTags := []string{
		"flaky-tests=HELPFUL@a7f1c2d4-0000-4000-8000-000000000006#0",
		"webhook-signer=HARMFUL@a7f1c2d4-0000-4000-8000-000000000006#0",
	}
	if strings.Join(tags, " ") != strings.Join(wantTags, " ") {
		t.Errorf("tags = %q, want %q", tags, wantTags)
	}
	c0, c1 := tr.Turns[0].Commands, tr.Turns[1].Commands
	if len(c0) != 1 || !c0[0].Done || c0[0].ExitCode != 0 || !strings.HasPrefix(c0[0].Command, "go test") {
		t.Errorf("turn 0 commands = %+v", c0)
	}
	if len(c1) != 1 || !c1[0].Done || c1[0].ExitCode != 1 || !strings.HasPrefix(c1[0].Command, "docker build") {
		t.Errorf("turn 1 commands = %+v", c1)
	}
}

func TestReadClaudeTranscriptJunk(t *testing.T) {
	in := "not json\n{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n[1,2]\n\n{\"type\":\"assistant\",\"message\":{\"content\":\"plain string answer\"}}"
	tr, err := ReadClaudeTranscript(strings.NewReader(in), "s")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Skipped != 2 || len(tr.Turns) != 1 || tr.Turns[0].Prompt != "hi" || len(tr.Turns[0].Texts) != 1 {
		t.Errorf("got %+v", tr)
	}
}

// A line naming another session is not this session's: not its prompt,
// not its text, not its tags. Lines without a sessionId are read.
func TestReadClaudeTranscriptOtherSession(t *testing.T) {
	in := `{"type":"user","sessionId":"other","message":{"role":"user","content":"their prompt"}}
{"type":"assistant","sessionId":"other","message":{"content":[{"type":"text","text":"<skill-used name=\"a\" verdict=\"HARMFUL\"/>"}]}}
{"type":"user","sessionId":"mine","message":{"role":"user","content":"my prompt"}}
{"type":"assistant","message":{"content":[{"type":"text","text":"<skill-used name=\"a\" verdict=\"HELPFUL\"/>"}]}}
`
	tr, err := ReadClaudeTranscript(strings.NewReader(in), "mine")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Foreign != 2 || len(tr.Turns) != 1 || tr.Turns[0].Prompt != "my prompt" {
		t.Fatalf("got %+v", tr)
	}
	if tags := ParseTags(tr.Turns[0].Texts[0].Text); len(tags) != 1 || tags[0].Verdict != "HELPFUL" {
		t.Fatalf("tags %+v", tags)
	}
}

// A line over MaxTranscriptLine (a huge tool result) is skipped and
// counted; the lines around it are read.
func TestReadClaudeTranscriptSkipsHugeLines(t *testing.T) {
	huge := `{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("x", MaxTranscriptLine) + `<skill-used name=\"a\" verdict=\"HARMFUL\"/>"}]}}`
	in := `{"type":"user","message":{"role":"user","content":"my prompt"}}` + "\n" + huge + "\n" +
		`{"type":"assistant","message":{"content":[{"type":"text","text":"done"}]}}` + "\n"
	tr, err := ReadClaudeTranscript(strings.NewReader(in), "")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Skipped != 1 || len(tr.Turns) != 1 || len(tr.Turns[0].Texts) != 1 || tr.Turns[0].Texts[0].Text != "done" {
		t.Fatalf("skipped %d, turns %d: want the huge line skipped, the prompt and the short text read", tr.Skipped, len(tr.Turns))
	}
}

// TestRefusedCommandIsNoFailure reads a real Claude Code session in which
// the user's permissions refused the Bash command the model asked for: a
// command that never ran says nothing of the skill, so it is not a failed
// one (which would count against the skill).
func TestRefusedCommandIsNoFailure(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "learn", "history", "testdata", "home", ".claude", "projects", "-home-user-proj", "627118f1-37ea-40d3-9099-08f6c238e66d.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := ReadClaudeTranscript(f, "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, turn := range tr.Turns {
		for _, c := range turn.Commands {
			n++
			if c.Done {
				t.Errorf("the refused command %q is done with exit %d", c.Command, c.ExitCode)
			}
		}
	}
	if n == 0 {
		t.Fatal("the session's Bash command was not read")
	}
}
