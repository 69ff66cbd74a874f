package install

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// Codex's per-skill switch is an entry of the array [[skills.config]] in
// its user config.toml (~/.codex/config.toml: Codex 0.171.0 reads
// skills.config from that layer only, never from a project's
// .codex/config.toml), selecting a skill by `path` (its SKILL.md, which
// Codex canonicalises) or by `name`, with `enabled`. A later entry wins
// over an earlier one for the same skill. enabled = false takes the skill
// out of the model's listing and out of the user's $NAME mentions and
// skills picker too, which is why adopt writes it only when asked to.
//
// As with megagit's MCP table, the file is the user's: adopt appends its
// entry as a table of its own and removes exactly that table, then checks
// the edit with a TOML parser (the document must decode to what it did,
// with only that entry added or gone).

// CodexOff is the value adopt reports for the entry it writes.
const CodexOff = "enabled = false"

// CodexOn is what an entry that turns the skill on says.
const CodexOn = "enabled = true"

// CodexSkillRule is one [[skills.config]] entry of a Codex config.toml:
// a Path or a Name selector (Codex ignores an entry with both or none).
type CodexSkillRule struct {
	Path, Name string
	Enabled    bool
}

// skillsHeaderRE matches the header of one [[skills.config]] table.
var skillsHeaderRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\[\s*(?:skills|"skills"|'skills')\s*\.\s*(?:config|"config"|'config')\s*\]\]\s*(?:#.*)?$`)
})

// CodexSkillRules are the [[skills.config]] entries of a Codex config.toml
// (empty: none), in order. An entry Codex would refuse (enabled missing or
// not a boolean: Codex then ignores every skills setting of the file) is
// an error naming it.
func CodexSkillRules(data []byte) ([]CodexSkillRule, error) {
	m, err := decodeTOML(data)
	if err != nil {
		return nil, err
	}
	return codexRules(m)
}

func codexRules(m map[string]any) ([]CodexSkillRule, error) {
	raw, ok := m["skills"]
	if !ok {
		return nil, nil
	}
	skills, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("field skills: not a table")
	}
	raw, ok = skills["config"]
	if !ok {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("field skills.config: not an array of tables")
	}
	var out []CodexSkillRule
	for i, e := range list {
		t, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("field skills.config[%d]: not a table", i)
		}
		var r CodexSkillRule
		if r.Enabled, ok = t["enabled"].(bool); !ok {
			return nil, fmt.Errorf("field skills.config[%d].enabled: missing or not true/false (Codex then ignores every skills setting of the file)", i)
		}
		for key, dst := range map[string]*string{"path": &r.Path, "name": &r.Name} {
			if v, ok := t[key]; ok {
				if *dst, ok = v.(string); !ok {
					return nil, fmt.Errorf("field skills.config[%d].%s: not a string", i, key)
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// CodexSkillSwitch is what the last entry with the path selector skill
// (a SKILL.md, compared as Codex does, symlinks resolved) says of it:
// CodexOff, CodexOn, or "" when none selects it by that path.
func CodexSkillSwitch(data []byte, skill string) (string, error) {
	rules, err := CodexSkillRules(data)
	if err != nil {
		return "", err
	}
	return pathSwitch(rules, skill), nil
}

func pathSwitch(rules []CodexSkillRule, skill string) string {
	v := ""
	for _, r := range rules {
		if r.Name == "" && r.Path != "" && SamePath(r.Path, skill) {
			v = map[bool]string{true: CodexOn, false: CodexOff}[r.Enabled]
		}
	}
	return v
}

// CodexDisabled says whether Codex's rules turn off the skill of that
// SKILL.md (canonical) and name, resolved as Codex resolves them: an entry
// given twice counts at its last place, each later entry that selects the
// skill (by path or by name) overrides the earlier ones.
func CodexDisabled(rules []CodexSkillRule, skill, name string) bool {
	type sel struct{ path, name string }
	var order []sel
	last := map[sel]bool{}
	for _, r := range rules {
		s := sel{}
		switch {
		case r.Path != "" && r.Name == "":
			s.path = CanonicalPath(r.Path)
		case r.Path == "" && strings.TrimSpace(r.Name) != "":
			s.name = strings.TrimSpace(r.Name)
		default:
			continue // Codex ignores it too
		}
		if _, ok := last[s]; ok {
			for i, o := range order {
				if o == s {
					order = append(order[:i], order[i+1:]...)
					break
				}
			}
		}
		order = append(order, s)
		last[s] = r.Enabled
	}
	off := false
	for _, s := range order {
		if s.path != "" && s.path == skill || s.name != "" && s.name == name {
			off = !last[s]
		}
	}
	return off
}

// SamePath says whether two paths name the same file as Codex compares
// them (CanonicalPath).
func SamePath(a, b string) bool { return CanonicalPath(a) == CanonicalPath(b) }

// CanonicalPath is p as Codex compares skill paths: "~/" expanded,
// cleaned, symlinks resolved as far as they exist.
func CanonicalPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			p = filepath.Join(home, rest)
		}
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// codexEntry is the table adopt writes for the SKILL.md skill.
func codexEntry(skill string) string {
	body, err := toml.Marshal(struct {
		Path    string `toml:"path"`
		Enabled bool   `toml:"enabled"`
	}{skill, false})
	if err != nil {
		panic(err) // a string and a boolean always encode
	}
	return "[[skills.config]]\n" + string(body)
}

// AddCodexSkillOff appends a [[skills.config]] entry turning the skill of
// that SKILL.md (absolute) off to a Codex config.toml (empty: a new file),
// unless its last entry by that path already does; the rest of the file
// is kept byte for byte.
func AddCodexSkillOff(data []byte, skill string) ([]byte, error) {
	before, err := decodeTOML(data)
	if err != nil {
		return nil, err
	}
	rules, err := codexRules(before)
	if err != nil {
		return nil, err
	}
	if pathSwitch(rules, skill) == CodexOff {
		return data, nil
	}
	out := append([]byte{}, data...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if len(strings.TrimSpace(string(out))) > 0 {
		out = append(out, '\n')
	}
	out = append(out, codexEntry(skill)...)
	want := cloneSkills(before)
	skills, _ := want["skills"].(map[string]any)
	if skills == nil {
		skills = map[string]any{}
		want["skills"] = skills
	}
	list, _ := skills["config"].([]any)
	skills["config"] = append(append([]any{}, list...), map[string]any{"path": skill, "enabled": false})
	return checkSkillsTOML(out, want, "added")
}

// RemoveCodexSkillOff removes every [[skills.config]] table that holds
// just the path of that SKILL.md and enabled = false (what
// AddCodexSkillOff wrote), keeping the rest of the file byte for byte. An
// entry written otherwise (inline, or with other keys) is left, and the
// edit refused when that leaves the entry in the file.
func RemoveCodexSkillOff(data []byte, skill string) ([]byte, error) {
	before, err := decodeTOML(data)
	if err != nil {
		return nil, err
	}
	rules, err := codexRules(before)
	if err != nil {
		return nil, err
	}
	found := false
	for _, r := range rules {
		found = found || isOurs(r, skill)
	}
	if !found {
		return data, nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	var kept []string
	for i := 0; i < len(lines); i++ {
		if !skillsHeaderRE().MatchString(strings.TrimRight(lines[i], "\r\n")) {
			kept = append(kept, lines[i])
			continue
		}
		// The table's keys: the lines up to a blank line, a comment or
		// the next header (a comment after it stays where it is).
		end := i + 1
		for end < len(lines) {
			l := strings.TrimSpace(lines[end])
			if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "[") {
				break
			}
			end++
		}
		if !oursTable(strings.Join(lines[i:end], ""), skill) {
			kept = append(kept, lines[i])
			continue
		}
		// The blank line adopt put before it goes too, unless it parts
		// two things that stay.
		if n := len(kept); n > 0 && strings.TrimSpace(kept[n-1]) == "" && (end == len(lines) || strings.TrimSpace(lines[end]) == "") {
			kept = kept[:n-1]
		}
		i = end - 1
	}
	out := []byte(strings.Join(kept, ""))
	if len(strings.TrimSpace(string(out))) == 0 {
		out = nil
	}
	want := cloneSkills(before)
	if skills, ok := want["skills"].(map[string]any); ok {
		list, _ := skills["config"].([]any)
		var keep []any
		for _, e := range list {
			t, _ := e.(map[string]any)
			if p, _ := t["path"].(string); len(t) == 2 && p != "" && t["enabled"] == false && SamePath(p, skill) {
				continue
			}
			keep = append(keep, e)
		}
		skills["config"] = keep
	}
	return checkSkillsTOML(out, want, "removed")
}

func isOurs(r CodexSkillRule, skill string) bool {
	return !r.Enabled && r.Name == "" && r.Path != "" && SamePath(r.Path, skill)
}

// oursTable says whether text, one [[skills.config]] table, holds just
// the path of skill and enabled = false.
func oursTable(text, skill string) bool {
	var doc struct {
		Skills struct {
			Config []map[string]any `toml:"config"`
		} `toml:"skills"`
	}
	if err := toml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Skills.Config) != 1 {
		return false
	}
	t := doc.Skills.Config[0]
	p, _ := t["path"].(string)
	return len(t) == 2 && t["enabled"] == false && p != "" && SamePath(p, skill)
}

// checkSkillsTOML returns updated if it decodes to want (an empty
// skills.config or skills counts as none), else an error saying the
// entry could not be edited as a table of its own.
func checkSkillsTOML(updated []byte, want map[string]any, verb string) ([]byte, error) {
	got, err := decodeTOML(updated)
	if err != nil || !reflect.DeepEqual(dropEmptySkills(got), dropEmptySkills(want)) {
		return nil, fmt.Errorf("%w: megagit's [[skills.config]] entry cannot be %s as a table of its own (is skills or skills.config written inline?)", errUnsafe, verb)
	}
	return updated, nil
}

func dropEmptySkills(m map[string]any) map[string]any {
	if s, ok := m["skills"].(map[string]any); ok {
		if l, ok := s["config"].([]any); ok && len(l) == 0 {
			delete(s, "config")
		}
		if len(s) == 0 {
			delete(m, "skills")
		}
	}
	return m
}

// cloneSkills copies a decoded document deeply enough to edit its
// skills.config array.
func cloneSkills(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if s, ok := m["skills"].(map[string]any); ok {
		c := make(map[string]any, len(s))
		for k, v := range s {
			c[k] = v
		}
		out["skills"] = c
	}
	return out
}

// CodexUserConfig is the config.toml whose skills.config Codex reads:
// $CODEX_HOME/config.toml, else ~/.codex/config.toml ("" without a home).
func CodexUserConfig() string {
	home, err := os.UserHomeDir()
	if err != nil {
		home = ""
	}
	if home == "" && !filepath.IsAbs(os.Getenv("CODEX_HOME")) {
		return ""
	}
	return filepath.Join(codexHome(home), "config.toml")
}
