package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/mcpserver"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// skills are the test registry's: three with descriptions a prompt can
// tell apart.
var skills = map[string]string{
	"flaky-tests":    "Find why tests pass locally but fail randomly in CI: ordering, shared state, time. Use when a test is flaky or fails intermittently.",
	"docker-slim":    "Shrink Docker images with multi-stage builds. Use when a Dockerfile produces large images or slow container builds.",
	"webhook-signer": "Validate HMAC signatures of incoming webhooks. Use when verifying Stripe or GitHub webhook payloads.",
}

const flakyBody = "# Flaky tests\n\nRun the test with -count=50 and -shuffle=on first.\n"

// newRegistry is a registry with the test skills.
func newRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	r := registrytest.New(t)
	for _, name := range []string{"docker-slim", "flaky-tests", "webhook-signer"} {
		body := ""
		if name == "flaky-tests" {
			body = flakyBody
		}
		if _, _, err := r.AddSkill(name, skills[name], body); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// newServer is a server for r, and its log.
func newServer(t *testing.T, r *registry.Registry) (*mcp.Server, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	s, err := mcpserver.New(mcpserver.Options{Dir: r.Root(), Version: "test", Log: &log,
		Now: func() time.Time { return time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return s.MCP(), &log
}

// session connects a client to srv in process: one MCP session.
func session(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// connect starts a server for r and connects one client to it.
func connect(t *testing.T, r *registry.Registry) (*mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	srv, log := newServer(t, r)
	return session(t, srv), log
}

// call calls a tool and returns its result; a protocol error fails the
// test (a tool error is a result with IsError).
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes a result's structured content into out.
func structured(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
}

func TestInitializeListsTheFourToolsWithSchemas(t *testing.T) {
	cs, _ := connect(t, newRegistry(t))
	if got := cs.InitializeResult().ServerInfo.Name; got != "megagit" {
		t.Errorf("server name %q, want megagit", got)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	required := map[string][]string{
		mcpserver.ToolSearch:  {"query"},
		mcpserver.ToolGet:     {"name"},
		mcpserver.ToolList:    nil,
		mcpserver.ToolVerdict: {"name", "verdict"},
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		schema, _ := tool.InputSchema.(map[string]any)
		if schema["type"] != "object" {
			t.Errorf("%s: input schema %v, want an object", tool.Name, tool.InputSchema)
		}
		var req []string
		if r, ok := schema["required"].([]any); ok {
			for _, x := range r {
				req = append(req, x.(string))
			}
		}
		slices.Sort(req)
		if !slices.Equal(req, required[tool.Name]) {
			t.Errorf("%s: required %v, want %v", tool.Name, req, required[tool.Name])
		}
		if tool.Description == "" || tool.OutputSchema == nil {
			t.Errorf("%s: no description or output schema", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"get_skill", "list_skills", "record_verdict", "search_skills"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

func TestSearchFindsTheSkillOrSaysNothingFits(t *testing.T) {
	r := newRegistry(t)
	cs, log := connect(t, r)

	res := call(t, cs, mcpserver.ToolSearch, map[string]any{"query": "my go tests fail randomly on CI but pass on my laptop"})
	if res.IsError {
		t.Fatalf("search: tool error %s", text(res))
	}
	var out mcpserver.SearchOutput
	structured(t, res, &out)
	if len(out.Skills) == 0 || out.Skills[0].Name != "flaky-tests" {
		t.Fatalf("search: %+v, want flaky-tests first", out)
	}
	top := out.Skills[0]
	if top.Description != skills["flaky-tests"] || top.Score <= 0 || top.Path != registrytest.SkillPath(r, "flaky-tests") {
		t.Errorf("search: %+v, want the skill's description, a score and its path", top)
	}
	for _, s := range out.Skills {
		if s.Name == "webhook-signer" {
			t.Errorf("search: webhook-signer chosen for a flaky-test prompt: %+v", out)
		}
	}
	if txt := text(res); !strings.Contains(txt, "flaky-tests") || !strings.Contains(txt, top.Path) {
		t.Errorf("search text %q names no skill or path", txt)
	}

	res = call(t, cs, mcpserver.ToolSearch, map[string]any{"query": "thanks, have a nice weekend!"})
	out = mcpserver.SearchOutput{}
	structured(t, res, &out)
	if res.IsError || len(out.Skills) != 0 || !strings.HasPrefix(text(res), mcpserver.NothingFits) {
		t.Errorf("small talk: %+v %q, want nothing fits", out, text(res))
	}

	if res := call(t, cs, mcpserver.ToolSearch, map[string]any{"query": "  "}); !res.IsError {
		t.Errorf("empty query: %q, want a tool error", text(res))
	}
	if res := call(t, cs, mcpserver.ToolSearch, map[string]any{"query": "docker", "k": -1}); !res.IsError {
		t.Errorf("k=-1: %q, want a tool error", text(res))
	}
	if strings.Contains(log.String(), "\n{") {
		t.Errorf("the log holds protocol messages: %s", log)
	}
}

func TestGetSkillReturnsTheBody(t *testing.T) {
	r := newRegistry(t)
	cs, _ := connect(t, r)
	res := call(t, cs, mcpserver.ToolGet, map[string]any{"name": "flaky-tests"})
	var out mcpserver.GetOutput
	structured(t, res, &out)
	if res.IsError || !strings.Contains(out.Body, "-count=50") || out.Path != registrytest.SkillPath(r, "flaky-tests") || out.Status != "active" {
		t.Fatalf("get_skill: %+v (%q)", out, text(res))
	}
	if !strings.Contains(text(res), "-count=50") {
		t.Errorf("get_skill text %q holds no body", text(res))
	}
	res = call(t, cs, mcpserver.ToolGet, map[string]any{"name": "no-such-skill"})
	if !res.IsError || !strings.Contains(text(res), `no skill named "no-such-skill"`) {
		t.Errorf("unknown skill: %q, want a tool error naming it", text(res))
	}
}

func TestGetSkillBoundsTheBody(t *testing.T) {
	r := registrytest.New(t)
	body := strings.Repeat("é", mcpserver.MaxBody) // two bytes each
	if _, _, err := r.AddSkill("long-one", "A long skill.", body); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, r)
	var out mcpserver.GetOutput
	res := call(t, cs, mcpserver.ToolGet, map[string]any{"name": "long-one"})
	structured(t, res, &out)
	if !out.Truncated || len(out.Body) > mcpserver.MaxBody || !strings.Contains(text(res), "read the rest in "+out.Path) {
		t.Errorf("long body: %d bytes, truncated %v", len(out.Body), out.Truncated)
	}
}

func TestListSkillsByStatus(t *testing.T) {
	cs, _ := connect(t, newRegistry(t))
	var out mcpserver.ListOutput
	structured(t, call(t, cs, mcpserver.ToolList, nil), &out)
	if len(out.Skills) != 3 || out.Skills[0].Name != "docker-slim" || out.Skills[0].Status != "active" || out.Skills[0].Description != skills["docker-slim"] {
		t.Errorf("list_skills: %+v", out)
	}
	out = mcpserver.ListOutput{}
	structured(t, call(t, cs, mcpserver.ToolList, map[string]any{"status": "archived"}), &out)
	if len(out.Skills) != 0 {
		t.Errorf("archived: %+v, want none", out)
	}
	if res := call(t, cs, mcpserver.ToolList, map[string]any{"status": "retired"}); !res.IsError {
		t.Errorf("status retired: %q, want a tool error", text(res))
	}
}

func TestRecordVerdictOnlyForASkillReturnedInTheSession(t *testing.T) {
	r := newRegistry(t)
	cs, log := connect(t, r)

	res := call(t, cs, mcpserver.ToolVerdict, map[string]any{"name": "docker-slim", "verdict": "HELPFUL"})
	if !res.IsError || !strings.Contains(text(res), `skill "docker-slim" was not returned by search_skills or get_skill in this session`) {
		t.Fatalf("verdict before any search: %q, want a tool error saying why", text(res))
	}

	call(t, cs, mcpserver.ToolSearch, map[string]any{"query": "my go tests fail randomly on CI but pass on my laptop"})
	res = call(t, cs, mcpserver.ToolVerdict, map[string]any{"name": "flaky-tests", "verdict": "helpful", "reason": "the shuffle found the order dependency"})
	if res.IsError {
		t.Fatalf("verdict: %q", text(res))
	}
	var out mcpserver.VerdictOutput
	structured(t, res, &out)
	if out.Verdict != "HELPFUL" || out.Helpful != 1 || len(out.Commit) != 40 {
		t.Errorf("verdict: %+v", out)
	}
	logs, err := r.Log("flaky-tests", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) == 0 || logs[0].Kind != "verdict" || logs[0].Verdict != "HELPFUL" || logs[0].Commit != out.Commit ||
		logs[0].Reason != "the shuffle found the order dependency" {
		t.Errorf("registry log: %+v, want the HELPFUL verdict in commit %s", logs, out.Commit)
	}
	entries, err := r.Ledger("flaky-tests")
	if err != nil || len(entries) != 1 || !strings.Contains(entries[0].Context, "fail randomly on CI") {
		t.Errorf("ledger %+v (%v): want the search's query as the context", entries, err)
	}
	if !strings.Contains(log.String(), "record_verdict HELPFUL for flaky-tests") {
		t.Errorf("log %q does not say what was recorded", log)
	}

	// get_skill offers a skill too; a bad verdict is a tool error.
	call(t, cs, mcpserver.ToolGet, map[string]any{"name": "webhook-signer"})
	if res := call(t, cs, mcpserver.ToolVerdict, map[string]any{"name": "webhook-signer", "verdict": "GREAT"}); !res.IsError {
		t.Errorf("verdict GREAT: %q, want a tool error", text(res))
	}
	if res := call(t, cs, mcpserver.ToolVerdict, map[string]any{"name": "webhook-signer", "verdict": "NEUTRAL"}); res.IsError {
		t.Errorf("verdict after get_skill: %q", text(res))
	}
}

func TestANewSessionStartsWithNothingOffered(t *testing.T) {
	r := newRegistry(t)
	srv, _ := newServer(t, r)
	cs, cs2 := session(t, srv), session(t, srv)
	call(t, cs, mcpserver.ToolGet, map[string]any{"name": "docker-slim"})
	if res := call(t, cs2, mcpserver.ToolVerdict, map[string]any{"name": "docker-slim", "verdict": "HARMFUL"}); !res.IsError {
		t.Errorf("verdict in another session: %q, want a tool error", text(res))
	}
	if res := call(t, cs, mcpserver.ToolVerdict, map[string]any{"name": "docker-slim", "verdict": "HARMFUL"}); res.IsError {
		t.Errorf("verdict in the session that read it: %q", text(res))
	}
}

func TestNewOutsideARegistry(t *testing.T) {
	if _, err := mcpserver.New(mcpserver.Options{Dir: filepath.Join(t.TempDir())}); err == nil {
		t.Error("New outside a registry: no error")
	}
}

// A skill of the team registry (configured for the user) is listed, read
// and rated like the registry's own, and its verdict lands in the team
// registry, not in the project's.
func TestTeamSkillsAreServedAndRatedInTheTeamRegistry(t *testing.T) {
	team := registrytest.New(t, "release-notes")
	r := newRegistry(t) // a fresh private HOME; the team registry is set below
	t.Setenv("MEGAGIT_TEAM_REGISTRY", team.Root())
	cs, _ := connect(t, r)

	var list mcpserver.ListOutput
	structured(t, call(t, cs, mcpserver.ToolList, map[string]any{}), &list)
	names := []string{}
	for _, s := range list.Skills {
		names = append(names, s.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "release-notes") {
		t.Fatalf("list_skills %q lacks the team registry's skill", names)
	}
	res := call(t, cs, mcpserver.ToolGet, map[string]any{"name": "release-notes"})
	var got mcpserver.GetOutput
	structured(t, res, &got)
	if res.IsError || got.Path != registrytest.SkillPath(team, "release-notes") {
		t.Fatalf("get_skill: %q, path %q; want the team registry's SKILL.md %q", text(res), got.Path, registrytest.SkillPath(team, "release-notes"))
	}
	res = call(t, cs, mcpserver.ToolVerdict, map[string]any{"name": "release-notes", "verdict": "HELPFUL"})
	if res.IsError {
		t.Fatalf("verdict: %q", text(res))
	}
	if logs, err := team.Log("release-notes", 0); err != nil || len(logs) == 0 || logs[0].Verdict != "HELPFUL" {
		t.Errorf("team registry log %+v (%v): want the HELPFUL verdict", logs, err)
	}
	if entries, _ := r.Ledger("release-notes"); len(entries) != 0 {
		t.Errorf("the project registry got a ledger for the team's skill: %+v", entries)
	}
}
