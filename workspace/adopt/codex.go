package adopt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/errkind"
	install "github.com/megagit/megagit/hook/install"
	"github.com/megagit/megagit/workspace"
)

// Codex (0.171.0) has one per-skill switch: an entry of [[skills.config]]
// in the user's ~/.codex/config.toml (the only layer whose skills.config
// it reads: a project's .codex/config.toml is not, trusted or not), by
// path or name, with enabled = false. It takes the skill out of the
// model's listing, and out of the user's $NAME mentions and skills picker
// too. The switch that keeps $NAME, policy.allow_implicit_invocation:
// false, is in the skill's own agents/openai.yaml, a file of the user's
// skill that adopt never writes. So adopt writes Codex's switch only when
// asked (--codex-disable), by the SKILL.md's path, and says why otherwise.

// codexNoSwitch is why adopt leaves Codex's listing of a skill unless
// asked to disable it.
const codexNoSwitch = "Codex has no per-skill setting that keeps your $NAME: its one switch, `enabled = false` in [[skills.config]] of ~/.codex/config.toml, also takes the skill out of $NAME mentions and the skills picker (Codex 0.171.0), and its allow_implicit_invocation is in the skill's own agents/openai.yaml, which adopt does not write: Codex keeps listing it (`--codex-disable` writes enabled = false all the same)"

// codexConfig is the Codex config.toml adopt writes into, as read.
type codexConfig struct {
	file  string
	rules []install.CodexSkillRule
	// why, when set, is why adopt writes no Codex setting here.
	why string
}

// readCodexConfig reads ~/.codex/config.toml; a file that does not parse,
// or whose skills.config Codex would refuse, is an error naming it.
func (w *space) readCodexConfig() (*codexConfig, error) {
	home, err := w.SwitchBase(workspace.KindUser)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(home, ".codex")
	if h := os.Getenv("CODEX_HOME"); h != "" && workspace.RealPath(h) != workspace.RealPath(dir) {
		return &codexConfig{why: "CODEX_HOME is set (" + workspace.Describe(h) + "), and adopt writes only ~/.codex/config.toml: Codex keeps listing it"}, nil
	}
	file := filepath.Join(dir, "config.toml")
	_, data, err := install.ReadSettings(file)
	if err != nil {
		return nil, err
	}
	rules, err := install.CodexSkillRules(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errkind.ErrInvalid, file, err)
	}
	return &codexConfig{file: file, rules: rules}, nil
}

// entryFor says what the last entry that selects the skill (its SKILL.md,
// canonical, or its name) is, as a reason to leave it: "" for none.
func (c *codexConfig) entryFor(skill, name string) string {
	for i := len(c.rules) - 1; i >= 0; i-- {
		r := c.rules[i]
		by := ""
		switch {
		case r.Path != "" && r.Name == "" && install.SamePath(r.Path, skill):
			by = "path"
		case r.Path == "" && strings.TrimSpace(r.Name) == name:
			by = "name"
		default:
			continue
		}
		return fmt.Sprintf("[[skills.config]] of %s already has an entry for it by %s (enabled = %v, your own setting): left alone", workspace.Describe(c.file), by, r.Enabled)
	}
	return ""
}
