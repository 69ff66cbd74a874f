package hook

import (
	"encoding/json"
	"strings"
	"testing"
)

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

// agentOutput is the JSON every agent reads context from:
// hookSpecificOutput.{hookEventName, additionalContext}. Codex rejects
// unknown fields (additionalProperties: false), so the test does too.
type agentOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// TestRenderContract parses what each agent gets on each event the way
// the agent does: Claude Code plain text (or its JSON form), Codex and
// Gemini CLI one JSON object and nothing else.
func TestRenderContract(t *testing.T) {
	for _, tt := range []struct {
		event, agent, mode string
		json               bool
		name               string // the hookEventName the agent expects
	}{
		{EventSessionStart, AgentClaude, OutputText, false, ""},
		{EventSessionStart, AgentClaude, OutputJSON, true, "SessionStart"},
		{EventSessionStart, AgentCodex, OutputText, true, "SessionStart"},
		{EventSessionStart, AgentGemini, OutputText, true, "SessionStart"},
		{EventPrompt, AgentClaude, OutputJSON, true, "UserPromptSubmit"},
		{EventPrompt, AgentCodex, OutputText, true, "UserPromptSubmit"},
		{EventPrompt, AgentGemini, OutputJSON, true, "BeforeAgent"},
	} {
		t.Run(tt.event+"/"+tt.agent+"/"+tt.mode, func(t *testing.T) {
			out, err := RenderEvent(tt.event, tt.agent, tt.mode, SessionInstruction)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.json {
				if out != SessionInstruction {
					t.Fatalf("plain stdout = %q, want the instruction as is", out)
				}
				return
			}
			dec := json.NewDecoder(strings.NewReader(out))
			dec.DisallowUnknownFields()
			var got agentOutput
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("%q is not the agent's JSON: %v", out, err)
			}
			if dec.More() {
				t.Fatalf("%q: more than one JSON object on stdout", out)
			}
			if h := got.HookSpecificOutput; h.HookEventName != tt.name || h.AdditionalContext != SessionInstruction {
				t.Errorf("hookSpecificOutput = %+v, want event %s and the instruction", h, tt.name)
			}
		})
	}
	if _, err := RenderEvent(EventSessionStart, "vim", OutputText, "x"); err == nil {
		t.Error("an unknown agent rendered")
	}
}

func TestInjectionTextInstruction(t *testing.T) {
	with := InjectionText("megagit: skills\n- a: b (skills/a/SKILL.md)\n", nil, ReportInstruction)
	without := InjectionText("megagit: skills\n- a: b (skills/a/SKILL.md)\n", []string{"c"}, "")
	if !strings.Contains(with, ReportInstruction) {
		t.Errorf("instruct: no instruction in %q", with)
	}
	if strings.Contains(without, "skill-used") || !strings.Contains(without, "already loaded in this session (see above): c") {
		t.Errorf("no instruct: %q", without)
	}
	if InjectionText("", nil, ReportInstruction) != "" {
		t.Error("nothing to inject still printed the instruction")
	}
}

func TestRenderOpencodeCopilot(t *testing.T) {
	if out, _ := Render(AgentOpencode, OutputJSON, "ctx\n"); out != "ctx\n" {
		t.Errorf("opencode = %q, want the text as is (the plugin adds it to the system prompt)", out)
	}
	for _, ev := range []string{EventPrompt, EventSessionStart} {
		out, _ := RenderEvent(ev, AgentCopilot, OutputText, "ctx")
		if out != `{"additionalContext":"ctx"}`+"\n" {
			t.Errorf("copilot %s = %q", ev, out)
		}
	}
}
