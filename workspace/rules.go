package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	install "github.com/megagit/megagit/hook/install"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route"
)

// The agents' own rules of which skills reach the model, which megagit
// obeys: a skill the agent would not list for the model is never
// injected (but still listed by skill list and show), and a skill limited
// to some paths is routed only where they match.

// geminiSettingsFiles are Gemini CLI's user and workspace settings,
// whose skills.disabled lists the skills turned off.
func (w *Workspace) geminiSettingsFiles() []string {
	var out []string
	if w.Cfg.Sources.User {
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			out = append(out, filepath.Join(home, ".gemini", "settings.json"))
		}
	}
	return append(out, filepath.Join(w.Reg.WorkTree(), ".gemini", "settings.json"))
}

// geminiOff are the skills Gemini CLI's settings turn off: the union of
// every settings file's skills.disabled (names compared in lower case, as
// Gemini CLI does), or every skill (all) when skills.enabled is false.
// The file that says so is the value.
type geminiOff struct {
	names map[string]string
	all   string
}

// geminiDisabled reads Gemini CLI's settings; a file that cannot be read
// is a problem naming it and the field.
func (w *Workspace) geminiDisabled() (geminiOff, []error) {
	off := geminiOff{names: map[string]string{}}
	if !w.Cfg.Sources.Gemini && !w.Cfg.Sources.Codex {
		return off, nil
	}
	var problems []error
	for _, f := range w.geminiSettingsFiles() {
		data, err := local.ReadRegular(f, local.MaxConfig)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", describe(f), err))
			continue
		}
		var s struct {
			Skills json.RawMessage `json:"skills"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", describe(f), err))
			continue
		}
		if len(s.Skills) == 0 || string(s.Skills) == "null" {
			continue
		}
		var sk struct {
			Enabled  *bool           `json:"enabled"`
			Disabled json.RawMessage `json:"disabled"`
		}
		if err := json.Unmarshal(s.Skills, &sk); err != nil {
			problems = append(problems, fmt.Errorf("%s: field skills: %w", describe(f), err))
			continue
		}
		if sk.Enabled != nil && !*sk.Enabled && off.all == "" {
			off.all = describe(f)
		}
		if len(sk.Disabled) == 0 || string(sk.Disabled) == "null" {
			continue
		}
		var names []string
		if err := json.Unmarshal(sk.Disabled, &names); err != nil {
			problems = append(problems, fmt.Errorf("%s: field skills.disabled: must be a list of skill names", describe(f)))
			continue
		}
		for _, n := range names {
			if _, ok := off.names[strings.ToLower(n)]; !ok {
				off.names[strings.ToLower(n)] = describe(f)
			}
		}
	}
	return off, problems
}

// geminiReads says whether Gemini CLI reads the native folder dir: its
// own .gemini/skills and the .agents/skills it reads as an alias.
func geminiReads(dir string) bool {
	return strings.HasSuffix(filepath.ToSlash(dir), "/.gemini/skills") || strings.HasSuffix(filepath.ToSlash(dir), "/.agents/skills")
}

// AgentRules are the agents' settings that keep skills from the model,
// and the switches among them megagit's adopt wrote (which do not keep
// megagit from routing the skill: that is what they are for).
type AgentRules struct {
	gem    geminiOff
	claude map[string]claudeSwitch
	codex  codexOff
	// own are adopt's switches, by agent and lower-case name (Codex's by
	// SKILL.md path): the settings file each is in.
	own map[string]map[string]string
}

// Ours says whether the switch of agent for name in file is one adopt
// wrote.
func (r AgentRules) Ours(agent, name, file string) bool {
	f := r.own[agent][strings.ToLower(name)]
	return f != "" && (f == file || describe(f) == file)
}

// OwnCodex says whether adopt wrote a Codex switch for the SKILL.md key
// (canonical).
func (r AgentRules) OwnCodex(key string) bool { return r.own["codex"][key] != "" }

// CodexRules are the [[skills.config]] entries of Codex's config.toml.
func (r AgentRules) CodexRules() []install.CodexSkillRule { return r.codex.rules }

// GeminiDisabled is the settings file whose skills.disabled names the
// skill ("" for none).
func (r AgentRules) GeminiDisabled(name string) string { return r.gem.names[strings.ToLower(name)] }

// ClaudeOff is the skillOverrides value that keeps the skill name from
// the model, and the settings file that says it (set false for none).
func (r AgentRules) ClaudeOff(name string) (value, file string, set bool) {
	cs, set := r.claude[name]
	return cs.value, cs.file, set
}

// AgentRules reads the agents' settings; a file that cannot be read is a
// problem naming it and the field.
func (w *Workspace) AgentRules() (AgentRules, []error) {
	gem, problems := w.geminiDisabled()
	claude, cp := w.claudeOff()
	codex, xp := w.codexRules()
	return AgentRules{gem: gem, claude: claude, codex: codex, own: w.ownSwitches()}, append(append(problems, cp...), xp...)
}

// claudeReads says whether Claude Code reads the native folder dir.
func claudeReads(dir string) bool {
	return strings.HasSuffix(filepath.ToSlash(dir), "/.claude/skills")
}

// applyRules sets what the agents' rules say of s: whether it is the
// user's only (and why), and its paths globs (or why they cannot be read).
func applyRules(s *Sourced, r AgentRules) {
	gem := r.gem
	folder := filepath.Dir(filepath.Dir(s.AbsPath))
	cs, claudeOff := r.claude[s.Name]
	switch {
	case s.File.DisableModelInvocation():
		s.UserOnly = "disable-model-invocation: true (Claude Code)"
	case s.PolicyErr != nil:
		s.Held = s.PolicyErr.Error()
	case s.NoImplicit:
		s.UserOnly = "agents/openai.yaml: policy.allow_implicit_invocation: false (Codex)"
	case claudeOff && s.Kind != KindTeam && (s.Plugin != "" || claudeReads(folder)) && !r.Ours("claude", s.Name, cs.file):
		s.UserOnly = "skillOverrides: " + cs.value + " in " + describe(cs.file) + " (Claude Code)"
		if s.Plugin != "" {
			// Claude Code ignores skillOverrides for a plugin's skill and
			// lists it all the same (workspace/adopt, plugin.go); the value, under
			// the qualified name its settings would key it by, is the
			// user's word that the model should not have it.
			s.UserOnly = "skillOverrides: " + cs.value + " in " + describe(cs.file) + " (your setting: Claude Code lists a plugin's skill all the same)"
		}
	case s.Kind != KindTeam && s.Plugin == "" && s.NativeKey != "" && geminiReads(s.Folder) && (gem.all != "" || gem.names[strings.ToLower(s.Name)] != "" && !r.Ours("gemini", s.Name, gem.names[strings.ToLower(s.Name)])):
		file := gem.names[strings.ToLower(s.Name)]
		if file == "" {
			s.UserOnly = "skills.enabled: false in " + gem.all + " (Gemini CLI)"
		} else {
			s.UserOnly = "disabled in " + file + " skills.disabled (Gemini CLI)"
		}
	case s.Kind != KindTeam && s.Plugin == "" && codexReads(folder) && r.codex.off(s.AbsPath, s.Name, r.own["codex"]):
		s.UserOnly = "enabled = false in " + r.codex.file + " [[skills.config]] (Codex)"
	}
	paths, err := s.File.Paths()
	if err == nil {
		err = route.CheckGlobs(paths)
		if err != nil {
			err = fmt.Errorf("%s: field paths: %w", s.AbsPath, err)
		}
	}
	if err != nil && s.Held == "" {
		s.Held = err.Error()
	}
	s.Paths = paths
}

// Routable says whether the skill is a document of the router: not kept
// from the model by the agent's rules, its rules readable, and not turned
// off (megagit skill disable). The config's deny: list is applied when a
// prompt is ranked (route.Settings.Deny), so a change of it needs no
// rebuild of the compiled index: Offered says both.
func (s *Sourced) Routable() bool {
	return s.UserOnly == "" && s.Held == "" && s.Evidence.Disabled == ""
}

// Offered says whether the prompt hook, route, serve and MCP search may
// ever emit or hand the skill to the model.
func (s *Sourced) Offered() bool { return s.Routable() && s.Denied == "" && s.Untrusted == "" }

// OfferedBeforeTrust is Offered without the audit's hold: adopt runs the
// audit itself (its --allow decides), and a skill it hides that megagit
// holds back stays held back until audit.allow names it (doctor's trust
// check lists it).
func (s *Sourced) OfferedBeforeTrust() bool { return s.Routable() && s.Denied == "" }

// NotRoutedWhy says why a skill is never emitted ("" when it may be).
func (s *Sourced) NotRoutedWhy() string {
	switch {
	case s.Evidence.Disabled != "":
		return "disabled: " + s.Evidence.Disabled + "; megagit never injects it until `megagit skill enable`"
	case s.Denied != "":
		return "denied: the config's deny: list names it (" + s.Denied + "); megagit never injects it"
	case s.UserOnly != "":
		if s.Plugin != "" && strings.HasPrefix(s.UserOnly, "skillOverrides:") {
			return "user-only: " + s.UserOnly + "; megagit never injects it"
		}
		return "user-only: " + s.UserOnly + "; the agent keeps it from the model, so megagit never injects it"
	case s.Held != "":
		return "not routed: " + s.Held
	case s.Untrusted != "":
		return "held back: " + s.Untrusted
	}
	return ""
}

// PrecedenceDiff is a name megagit resolves otherwise than an agent
// would: megagit routes Megagit, the agent loads Agent.
type PrecedenceDiff struct {
	Name, Megagit, Agent, AgentName string
}

func (d PrecedenceDiff) String() string {
	return fmt.Sprintf("%s loads %s for %q (personal over project), while megagit routes %s (project over user)",
		d.AgentName, describe(d.Agent), d.Name, describe(d.Megagit))
}

// PrecedenceDiffs are the names of c where the agents' own precedence
// picks another file than megagit's project > user > team. Only Claude
// Code differs: its personal skills (~/.claude/skills) win over a
// project's (.claude/skills); Codex and Gemini CLI put the project's
// first, as megagit does.
func (w *Workspace) PrecedenceDiffs(c *Catalog) []PrecedenceDiff {
	projectClaude := filepath.Join(realPath(w.Reg.WorkTree()), ".claude", "skills") + string(filepath.Separator)
	var out []PrecedenceDiff
	for _, sh := range c.Shadowed {
		if sh.Kind != KindUser || sh.Agent != "claude" || sh.Plugin != "" {
			continue
		}
		win := c.Lookup(sh.Name)
		if win == nil || win.Kind != KindProject || !strings.HasPrefix(realPath(win.AbsPath), projectClaude) {
			continue
		}
		out = append(out, PrecedenceDiff{Name: sh.Name, Megagit: win.AbsPath, Agent: sh.AbsPath, AgentName: "Claude Code"})
	}
	return out
}
