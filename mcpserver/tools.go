package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/safetext"
	"github.com/megagit/megagit/workspace"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names, as agents see them.
const (
	ToolSearch  = "search_skills"
	ToolGet     = "get_skill"
	ToolList    = "list_skills"
	ToolVerdict = "record_verdict"
)

// MaxBody bounds the SKILL.md body get_skill returns; a longer one is cut
// (on a character boundary) with a line that says where the rest is.
const MaxBody = 32 << 10

// maxK bounds search_skills' k.
const maxK = 20

func (s *Server) addTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: ToolSearch, Title: "Search skills",
		Description: "Find the skills worth reading for a task, ranked as megagit's prompt hook ranks them. " +
			"Returns each chosen skill's name, description, score and SKILL.md path, or says that nothing fits " +
			"(then carry on without a skill).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, locked(s, s.search))
	mcp.AddTool(srv, &mcp.Tool{Name: ToolGet, Title: "Read a skill",
		Description: fmt.Sprintf("Read one skill's SKILL.md body (at most %d KiB) and its path.", MaxBody>>10),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, locked(s, s.get))
	mcp.AddTool(srv, &mcp.Tool{Name: ToolList, Title: "List skills",
		Description: "List the registry's skills: name, description and status (active, suspect or archived).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, locked(s, s.list))
	mcp.AddTool(srv, &mcp.Tool{Name: ToolVerdict, Title: "Record a verdict",
		Description: "Record whether a skill helped (HELPFUL), did harm (HARMFUL) or made no difference (NEUTRAL), " +
			"as one commit in the registry. Only for a skill search_skills or get_skill returned in this session.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: false, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, locked(s, s.verdict))
}

func ptr[T any](v T) *T { return &v }

// locked runs a tool's handler alone (see Server), logs its error, and
// turns a panic into a tool error: a bug in one call must not end the
// agent's session.
func locked[In, Out any](s *Server, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		defer func() {
			if p := recover(); p != nil {
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("internal error: %v", p)
			}
			if err != nil {
				s.logf("%s: %v", req.Params.Name, err)
			}
		}()
		return h(ctx, req, in)
	}
}

// SearchInput is search_skills' arguments.
type SearchInput struct {
	Query string `json:"query" jsonschema:"the task or prompt to find skills for, in plain words"`
	K     int    `json:"k,omitempty" jsonschema:"at most this many skills (default: the registry's route.top_k)"`
}

// SearchOutput is search_skills' answer: the chosen skills, best first;
// none when nothing fits.
type SearchOutput struct {
	Skills []FoundSkill `json:"skills"`
	// Reason is why this many skills were chosen (dynamic K's reason, for
	// example "abstain" when nothing fits).
	Reason string `json:"reason"`
}

// FoundSkill is one skill search_skills chose.
type FoundSkill struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Score       float64 `json:"score"`
	Path        string  `json:"path" jsonschema:"the SKILL.md file"`
}

func (s *Server) search(_ context.Context, req *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	var out SearchOutput
	if strings.TrimSpace(in.Query) == "" {
		return nil, out, errors.New("query is empty: say what the task is")
	}
	if in.K < 0 || in.K > maxK {
		return nil, out, fmt.Errorf("k is %d: want 1 to %d (or leave it out)", in.K, maxK)
	}
	cfg := s.ws.Cfg
	rt, err := s.ws.Router(s.logProblems, s.say, false) // its answer names skills; no body
	if err != nil {
		return nil, out, fmt.Errorf("reading the skills: %w", err)
	}
	// The prompt hook's settings (workspace.hookSettings): its ranking and
	// its abstention; k, when given, caps the count as route's --top-k does.
	st := workspace.RouteSettings(cfg)
	if in.K > 0 {
		st.TopK = in.K
	}
	st.Where = route.WhereAt("", in.Query, nil) // the agent runs megagit mcp in its working directory
	rr := rt.RouteWithProject(in.Query, s.opts.Project, st)
	score := map[int]float64{}
	for _, b := range rr.Res.Ranked {
		score[b.Doc] = b.Final
	}
	out.Reason, out.Skills = string(rr.Res.Reason), []FoundSkill{}
	for _, d := range rr.Res.Emitted {
		doc := rt.Docs[d]
		out.Skills = append(out.Skills, FoundSkill{Name: safetext.Injected(doc.ID), Description: safetext.Injected(doc.Description),
			Score: ranker.Round4(score[d]), Path: safetext.Injected(s.abs(doc.Path))})
		s.offer(req.Session, doc.ID, in.Query)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: searchText(out)}}}, out, nil
}

// NothingFits opens search_skills' text when no skill is worth reading.
const NothingFits = "Nothing fits"

func searchText(out SearchOutput) string {
	if len(out.Skills) == 0 {
		return fmt.Sprintf("%s: no skill in this registry is worth reading for this task (%s). Carry on without one.", NothingFits, out.Reason)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d skill(s) worth reading, best first (read one with %s):\n", len(out.Skills), ToolGet)
	for _, f := range out.Skills {
		fmt.Fprintf(&b, "- %s (score %.4f): %s\n  %s\n", f.Name, f.Score, f.Description, f.Path)
	}
	return b.String()
}

// GetInput is get_skill's arguments.
type GetInput struct {
	Name string `json:"name" jsonschema:"the skill's name, as search_skills or list_skills gave it"`
}

// GetOutput is one skill's SKILL.md body and where it is.
type GetOutput struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Status      string `json:"status"`
	Path        string `json:"path"`
	Body        string `json:"body"`
	// Truncated is set when the body was longer than MaxBody bytes.
	Truncated bool `json:"truncated,omitempty"`
}

func (s *Server) get(_ context.Context, req *mcp.CallToolRequest, in GetInput) (*mcp.CallToolResult, GetOutput, error) {
	sk, err := s.skill(in.Name)
	if err != nil {
		return nil, GetOutput{}, err
	}
	if sk.UserOnly != "" { // the agent keeps it from the model: so does megagit
		return nil, GetOutput{}, fmt.Errorf("skill %q is the user's to run (%s): it is not given to the model", sk.Name, sk.UserOnly)
	}
	if sk.Evidence.Disabled != "" || sk.Denied != "" || sk.Untrusted != "" { // turned off or held back: never given to the model
		return nil, GetOutput{}, fmt.Errorf("skill %q is not given to the model (%s)", sk.Name, sk.NotRoutedWhy())
	}
	// What a skill wrote reaches the agent as safetext.Injected makes it.
	out := GetOutput{Name: safetext.Injected(sk.Name), Description: safetext.Injected(sk.File.Listing()),
		Status: string(sk.Evidence.Status), Path: safetext.Injected(sk.AbsPath)}
	out.Body, out.Truncated = bounded(sk.File.Body(), MaxBody)
	out.Body = safetext.Injected(out.Body)
	s.offer(req.Session, sk.Name, "")
	text := fmt.Sprintf("# %s (%s)\n%s\n\n%s", out.Name, out.Status, out.Path, out.Body)
	if out.Truncated {
		text += fmt.Sprintf("\n\n[cut at %d KiB: read the rest in %s]", MaxBody>>10, out.Path)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// bounded cuts s to at most n bytes, on a character boundary.
func bounded(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// ListInput is list_skills' arguments.
type ListInput struct {
	Status string `json:"status,omitempty" jsonschema:"only skills with this status: active, suspect or archived (default: all)"`
}

// ListOutput is the registry's skills, by name.
type ListOutput struct {
	Skills []ListedSkill `json:"skills"`
}

// ListedSkill is one skill of list_skills.
type ListedSkill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Status      string `json:"status"`
}

func (s *Server) list(_ context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	out := ListOutput{Skills: []ListedSkill{}}
	want := strings.ToLower(strings.TrimSpace(in.Status))
	switch lifecycle.Status(want) {
	case "", lifecycle.Active, lifecycle.Suspect, lifecycle.Archived:
	default:
		return nil, out, fmt.Errorf("status %q: want active, suspect or archived", in.Status)
	}
	c, err := s.ws.Catalog()
	if err != nil {
		return nil, out, fmt.Errorf("reading the skills: %w", err)
	}
	s.logProblems(c.Problems)
	for _, sk := range c.Skills {
		if !sk.Offered() {
			continue // the user's to run, turned off or held back: the model is not told of it
		}
		if want == "" || string(sk.Evidence.Status) == want {
			out.Skills = append(out.Skills, ListedSkill{Name: safetext.Injected(sk.Name), Description: safetext.Injected(sk.File.Listing()),
				Status: string(sk.Evidence.Status)})
		}
	}
	var b strings.Builder
	if len(out.Skills) == 0 {
		b.WriteString("No skills")
		if want != "" {
			b.WriteString(" with status " + want)
		}
		b.WriteString(".\n")
	}
	for _, l := range out.Skills {
		fmt.Fprintf(&b, "- %s [%s]: %s\n", l.Name, l.Status, l.Description)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}

// VerdictInput is record_verdict's arguments.
type VerdictInput struct {
	Name    string `json:"name" jsonschema:"the skill, as search_skills or get_skill returned it in this session"`
	Verdict string `json:"verdict" jsonschema:"HELPFUL, HARMFUL or NEUTRAL"`
	Reason  string `json:"reason,omitempty" jsonschema:"why, in a sentence (kept in the ledger and the commit message)"`
}

// VerdictOutput is what a recorded verdict did.
type VerdictOutput struct {
	Name    string `json:"name"`
	Verdict string `json:"verdict"`
	Commit  string `json:"commit"`
	Status  string `json:"status"`
	Helpful int    `json:"helpful_count"`
	Harmful int    `json:"harmful_count"`
}

func (s *Server) verdict(_ context.Context, req *mcp.CallToolRequest, in VerdictInput) (*mcp.CallToolResult, VerdictOutput, error) {
	var out VerdictOutput
	v, err := lifecycle.ParseVerdict(in.Verdict)
	if err != nil {
		return nil, out, err
	}
	query, ok := s.wasOffered(req.Session, in.Name)
	if !ok {
		return nil, out, fmt.Errorf("skill %q was not returned by %s or %s in this session: a verdict is only for a skill you were given", in.Name, ToolSearch, ToolGet)
	}
	// In the registry that owns the skill (a team skill's in the team
	// registry, a read-only one's in the user's registry).
	clean, notes := registry.CleanInput(registry.VerdictInput{
		Skill: in.Name, Verdict: v, Reason: in.Reason, Context: query, Session: req.Session.ID(),
	})
	recorded, err := s.ws.RecordVerdicts([]registry.VerdictInput{clean}, s.opts.Now())
	if err != nil {
		return nil, out, err
	}
	if len(recorded) == 0 {
		return nil, out, fmt.Errorf("no verdict recorded for %q", in.Name)
	}
	applied, hash := recorded[0].Applied, recorded[0].Hash
	out = VerdictOutput{Name: in.Name, Verdict: string(v), Commit: hash.String()}
	text := fmt.Sprintf("Recorded %s for %s in commit %s.", v, in.Name, hash.String()[:12])
	if len(applied) > 0 {
		ev := applied[0].After
		out.Status, out.Helpful, out.Harmful = string(ev.Status), ev.HelpfulCount, ev.HarmfulCount
		text += fmt.Sprintf(" It is now %s (helpful %d, harmful %d).", ev.Status, ev.HelpfulCount, ev.HarmfulCount)
	}
	for _, n := range notes {
		text += " Note: " + n + "."
		s.logf("%s for %s: %s", ToolVerdict, in.Name, n)
	}
	s.logf("%s %s for %s: commit %s", ToolVerdict, v, in.Name, hash)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// skill reads one skill by name, from whichever source defines it.
func (s *Server) skill(name string) (*workspace.Sourced, error) {
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("name is empty: give a skill's name (list_skills lists them)")
	}
	sk, err := s.ws.Skill(name)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, fmt.Errorf("no skill named %q in this registry (list_skills lists them)", name)
	}
	return sk, err
}

// abs is a registry-relative path as a path on this machine (a skill of
// another source already has an absolute one).
func (s *Server) abs(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(s.ws.Reg.Root(), filepath.FromSlash(rel))
}

func (s *Server) logProblems(problems []error) {
	for _, p := range problems {
		s.logf("warning: %v (run megagit lint)", p)
	}
}

func (s *Server) say(line string) { s.logf("%s", line) }
