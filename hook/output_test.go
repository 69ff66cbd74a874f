package hook

import "testing"

func TestRender(t *testing.T) {
	if out, _ := Render(AgentClaude, OutputText, "ctx\n"); out != "ctx\n" {
		t.Errorf("claude text = %q", out)
	}
	out, _ := Render(AgentGemini, OutputText, "ctx")
	if out != `{"hookSpecificOutput":{"additionalContext":"ctx","hookEventName":"BeforeAgent"}}`+"\n" {
		t.Errorf("gemini = %q", out)
	}
	if out, _ := Render(AgentCodex, OutputJSON, ""); out != "" {
		t.Errorf("empty text rendered %q", out)
	}
}
