package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A session is one past prompt the agent answered with skills: what the
// asked half of a benchmark plays into the agents' own session files.
type session struct {
	Key    string   // the query id: names the session's ids
	Prompt string   // as the user typed it
	Skills []string // the skills the agent loaded for it, in order
	Agent  string   // claude, codex or gemini
	At     time.Time
	// Cwd is the project folder the agent ran in (the registry), and
	// SkillFile the SKILL.md of a skill in it (Codex reads the file).
	Cwd       string
	SkillFile func(name string) string
}

// obj is a JSON object whose keys keep their order, as the agents write
// them: key, value, key, value, ...
type obj []any

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := rawJSON(o[i].(string))
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := rawJSON(o[i+1])
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// rawJSON is v encoded compactly, without HTML escapes (the agents write
// "<" as it is).
func rawJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// lines writes one JSON object a line.
func lines(path string, objs ...obj) error {
	var b bytes.Buffer
	for _, o := range objs {
		line, err := rawJSON(o)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// uuidOf is a UUID-shaped id derived from parts: the same session gets
// the same ids on every run.
func uuidOf(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	x := hex.EncodeToString(h[:16])
	return x[:8] + "-" + x[8:12] + "-4" + x[13:16] + "-8" + x[17:20] + "-" + x[20:32]
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// writeSession writes s where its agent keeps sessions under home, and
// returns the file's path.
func writeSession(home string, s session) (string, error) {
	switch s.Agent {
	case "claude":
		return writeClaude(home, s)
	case "codex":
		return writeCodex(home, s)
	case "gemini":
		return writeGemini(home, s)
	}
	return "", fmt.Errorf("unknown agent %q", s.Agent)
}

// claudeProject is Claude Code's folder name for a project: every
// character but a letter or digit a hyphen.
func claudeProject(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
}

// writeClaude writes a Claude Code 2.1.332 transcript in the shapes of
// learn/history/testdata (948ad8dc…'s first turn): the queued prompt, the
// user line, per skill an assistant line calling the Skill tool, its
// tool_result and the skill's text Claude Code adds as a meta line, then
// the assistant's text and the last-prompt line. The attachment and
// api-request lines, which no reader looks at, are left out.
func writeClaude(home string, s session) (string, error) {
	id := uuidOf("claude", s.Key)
	common := func(o obj) obj {
		return append(o, "userType", "external", "entrypoint", "sdk-cli", "cwd", s.Cwd, "sessionId", id, "version", "2.1.332", "gitBranch", "master")
	}
	at := s.At
	tick := func() string { at = at.Add(37 * time.Millisecond); return stamp(at) }
	promptID := uuidOf("claude-prompt", s.Key)
	user := uuidOf("claude-user", s.Key)
	out := []obj{
		{"type", "queue-operation", "operation", "enqueue", "timestamp", stamp(at), "sessionId", id, "content", s.Prompt},
		{"type", "queue-operation", "operation", "dequeue", "timestamp", stamp(at), "sessionId", id},
		common(obj{"parentUuid", nil, "isSidechain", false, "promptId", promptID, "type", "user",
			"message", obj{"role", "user", "content", s.Prompt}, "uuid", user, "timestamp", tick(),
			"permissionMode", "default", "promptSource", "sdk", "sentAtMs", at.UnixMilli(), "rowSource", "local", "turnOrigin", "sdk",
			"turnPosition", obj{"promptIndex", 0, "turnIndex", 1}}),
	}
	parent := user
	for i, sk := range s.Skills {
		tool := fmt.Sprintf("toolu_%s_%d", id[:8], i)
		asst := uuidOf("claude-asst", s.Key, sk)
		res := uuidOf("claude-result", s.Key, sk)
		meta := uuidOf("claude-meta", s.Key, sk)
		out = append(out,
			common(obj{"parentUuid", parent, "isSidechain", false, "message", obj{
				"content", []obj{{"id", tool, "input", obj{"skill", sk}, "name", "Skill", "type", "tool_use"}},
				"id", "msg_" + tool, "model", "claude-opus-5-5", "role", "assistant", "stop_reason", "tool_use", "stop_sequence", nil,
				"type", "message", "usage", obj{"input_tokens", 100, "output_tokens", 10}},
				"requestedModel", "claude-opus-5-5", "type", "assistant", "uuid", asst, "timestamp", tick(), "madeBy", "model"}),
			common(obj{"parentUuid", asst, "isSidechain", false, "promptId", promptID, "type", "user", "message", obj{
				"role", "user", "content", []obj{{"type", "tool_result", "tool_use_id", tool, "content", "Launching skill: " + sk}}},
				"uuid", res, "timestamp", tick(), "toolUseResult", obj{"success", true, "commandName", sk},
				"sourceToolAssistantUUID", asst, "permissionDecision", obj{"decision", "accept", "source", "config"}}),
			common(obj{"parentUuid", res, "isSidechain", false, "promptId", promptID, "type", "user", "message", obj{
				"role", "user", "content", []obj{{"type", "text", "text", "Base directory for this skill: " + filepath.Dir(s.SkillFile(sk)) + "\n\n# " + sk + "\n"}}},
				"isMeta", true, "turnCompanion", true, "uuid", meta, "timestamp", tick(), "sourceToolUseID", tool}),
		)
		parent = meta
	}
	done := uuidOf("claude-done", s.Key)
	out = append(out,
		common(obj{"parentUuid", parent, "isSidechain", false, "message", obj{
			"content", []obj{{"text", "Done.", "type", "text"}}, "id", "msg_done_" + id[:8], "model", "claude-opus-5-5", "role", "assistant",
			"stop_reason", "end_turn", "stop_sequence", nil, "type", "message", "usage", obj{"input_tokens", 100, "output_tokens", 10}},
			"type", "assistant", "uuid", done, "timestamp", tick(), "madeBy", "model"}),
		obj{"type", "last-prompt", "lastPrompt", s.Prompt, "leafUuid", done, "sessionId", id},
	)
	p := filepath.Join(home, ".claude", "projects", claudeProject(s.Cwd), id+".jsonl")
	return p, lines(p, out...)
}

// writeCodex writes a Codex 0.171.0 rollout in the shapes of
// learn/history/testdata (…f02d…'s second turn): session_meta, the turn's
// start and context, the typed prompt (as a user response item and as
// item_completed of a UserMessage), per skill an exec_command reading the
// skill's SKILL.md with its CommandExecution and output (exit 0), then the
// agent's message and the turn's end.
func writeCodex(home string, s session) (string, error) {
	id := uuidOf("codex", s.Key)
	turn := uuidOf("codex-turn", s.Key)
	at := s.At
	tick := func() string { at = at.Add(11 * time.Millisecond); return stamp(at) }
	ord := 0
	line := func(typ string, payload obj) obj {
		o := obj{"timestamp", tick(), "ordinal", ord, "type", typ, "payload", payload}
		ord++
		return o
	}
	out := []obj{
		line("session_meta", obj{"account_scoped", true, "session_id", id, "id", id, "timestamp", stamp(s.At), "cwd", s.Cwd,
			"runtime_workspace_roots", []string{s.Cwd}, "originator", "codex_exec", "cli_version", "0.171.0", "source", "exec",
			"thread_source", "user", "model_provider", "mock"}),
		line("event_msg", obj{"type", "task_started", "turn_id", turn, "root_turn_id", turn, "started_at", s.At.Unix(),
			"model_context_window", 258400, "collaboration_mode_kind", "default"}),
		line("turn_context", obj{"turn_id", turn, "root_turn_id", turn, "cwd", s.Cwd, "approval_policy", "never", "model", "mock-model"}),
		line("response_item", obj{"type", "message", "id", "msg_" + uuidOf("codex-msg", s.Key), "role", "user",
			"content", []obj{{"type", "input_text", "text", s.Prompt}},
			"internal_chat_message_metadata_passthrough", obj{"turn_id", turn, "content_item_kinds", []string{"user.text"},
				"content_item_metadata", []obj{{"provenance", obj{"type", "user"}}}}}),
		line("event_msg", obj{"type", "item_completed", "thread_id", id, "turn_id", turn, "item", obj{"type", "UserMessage",
			"id", uuidOf("codex-user", s.Key), "content", []obj{{"type", "text", "text", s.Prompt, "text_elements", []any{}}}}}),
	}
	for i, sk := range s.Skills {
		call := fmt.Sprintf("call_%s_%d", id[:8], i)
		file := s.SkillFile(sk)
		cmd := "sed -n '1,200p' " + file
		args, err := rawJSON(obj{"cmd", cmd, "workdir", s.Cwd})
		if err != nil {
			return "", err
		}
		body := "---\nname: " + sk + "\n---\n"
		out = append(out,
			line("response_item", obj{"type", "function_call", "status", "completed", "id", "fc_" + call, "name", "exec_command",
				"arguments", string(args), "call_id", call, "internal_chat_message_metadata_passthrough", obj{"turn_id", turn}}),
			line("event_msg", obj{"type", "item_completed", "thread_id", id, "turn_id", turn, "item", obj{"type", "CommandExecution",
				"id", call, "command", []string{"/bin/bash", "-lc", cmd}, "cwd", "file://" + s.Cwd,
				"parsed_cmd", []obj{{"type", "read", "cmd", cmd, "name", "SKILL.md", "path", file}},
				"source", "unified_exec_startup", "status", "completed", "aggregated_output", body, "exit_code", 0}}),
			line("response_item", obj{"type", "function_call_output", "id", "fco_" + call, "call_id", call,
				"output", "Chunk ID: 000000\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 10\nOutput:\n" + body,
				"internal_chat_message_metadata_passthrough", obj{"turn_id", turn}}),
		)
	}
	msg := "msg_done_" + id[:8]
	out = append(out,
		line("event_msg", obj{"type", "item_completed", "thread_id", id, "turn_id", turn, "item", obj{"type", "AgentMessage", "id", msg,
			"content", []obj{{"type", "Text", "text", "Done."}}}}),
		line("response_item", obj{"type", "message", "status", "completed", "id", msg, "role", "assistant",
			"content", []obj{{"type", "output_text", "text", "Done.", "annotations", []any{}}},
			"internal_chat_message_metadata_passthrough", obj{"turn_id", turn, "content_item_kinds", []string{"unknown"}}}),
		line("event_msg", obj{"type", "task_complete", "root_turn_id", turn, "turn_id", turn, "last_agent_message", "Done."}),
	)
	t := s.At.UTC()
	p := filepath.Join(home, ".codex", "sessions", t.Format("2006"), t.Format("01"), t.Format("02"),
		"rollout-"+t.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	return p, lines(p, out...)
}

// geminiProject is the folder of the project's chats under ~/.gemini/tmp.
const geminiProject = "replay"

// writeGemini writes a Gemini CLI 0.61.0 chat log in the shapes of
// learn/history/testdata (379890c7's first turn): the header, the session
// context, the typed prompt, the model's message written again with its
// activate_skill calls and their results, the results as a user message,
// and the model's text; .project_root beside the chats names the project.
func writeGemini(home string, s session) (string, error) {
	id := uuidOf("gemini", s.Key)
	at := s.At
	tick := func() string { at = at.Add(23 * time.Millisecond); return stamp(at) }
	start := stamp(at)
	hash := sha256.Sum256([]byte(s.Cwd))
	ctx := obj{"id", uuidOf("gemini-ctx", s.Key), "timestamp", start, "type", "user", "content", []obj{{"text",
		"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n- **Workspace Directories:**\n  - " + s.Cwd + "\n</session_context>"}}}
	out := []obj{
		{"sessionId", id, "projectHash", hex.EncodeToString(hash[:]), "startTime", start, "lastUpdated", start, "kind", "main"},
		{"$set", obj{"messages", []obj{ctx}, "lastUpdated", start}},
		{"id", uuidOf("gemini-user", s.Key), "timestamp", tick(), "type", "user", "content", []obj{{"text", s.Prompt}}},
		{"$set", obj{"lastUpdated", stamp(at)}},
	}
	model := uuidOf("gemini-model", s.Key)
	tokens := obj{"input", 100, "output", 10, "cached", 0, "thoughts", 0, "tool", 0, "total", 110}
	t0 := tick()
	out = append(out, obj{"id", model, "timestamp", t0, "type", "gemini", "content", "", "thoughts", []any{}, "tokens", tokens, "model", "gemini-3.8-flash"})
	var calls, responses []obj
	for i, sk := range s.Skills {
		call := fmt.Sprintf("activate_skill__activate_skill_%d_%d", s.At.UnixMilli(), i)
		dir := filepath.Dir(s.SkillFile(sk))
		resp := obj{"functionResponse", obj{"id", call, "name", "activate_skill", "response", obj{"output",
			"<activated_skill name=\"" + sk + "\">\n  <instructions>\n    # " + sk + "\n  </instructions>\n\n  <available_resources>\n" + dir + "/\n└───SKILL.md\n  </available_resources>\n</activated_skill>"}}}
		calls = append(calls, obj{"id", call, "name", "activate_skill", "args", obj{"name", sk}, "result", []obj{resp},
			"status", "success", "timestamp", tick(), "resultDisplay", "Skill **" + sk + "** activated.", "displayName", "Activate Skill",
			"renderOutputAsMarkdown", true})
		responses = append(responses, resp)
	}
	out = append(out,
		obj{"$set", obj{"lastUpdated", t0}},
		obj{"id", model, "timestamp", t0, "type", "gemini", "content", "", "thoughts", []any{}, "tokens", tokens, "model", "gemini-3.8-flash", "toolCalls", calls},
		obj{"id", uuidOf("gemini-results", s.Key), "timestamp", tick(), "type", "user", "content", responses},
		obj{"$set", obj{"lastUpdated", stamp(at)}},
		obj{"id", uuidOf("gemini-done", s.Key), "timestamp", tick(), "type", "gemini", "content", "Done.", "thoughts", []any{}, "tokens", tokens, "model", "gemini-3.8-flash"},
		obj{"$set", obj{"lastUpdated", stamp(at)}},
	)
	dir := filepath.Join(home, ".gemini", "tmp", geminiProject)
	if err := os.MkdirAll(filepath.Join(dir, "chats"), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ".project_root"), []byte(s.Cwd), 0o644); err != nil {
		return "", err
	}
	t := s.At.UTC()
	p := filepath.Join(dir, "chats", "session-"+t.Format("2006-01-02T15-04")+"-"+id[:8]+".jsonl")
	return p, lines(p, out...)
}
