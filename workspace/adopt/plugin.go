package adopt

import (
	"fmt"
	"strings"

	"github.com/megagit/megagit/workspace"
)

// Claude Code (2.1.332) has no setting that takes a plugin's skill out of
// the model's listing. Its skillOverrides is read for the skills of its
// own synced "anthropic-skills" plugin only: for any other plugin's skill
// the effective state is "on" whatever a settings file says, under the
// qualified name ("docs-kit:pdf-forms") or the bare one ("pdf-forms"),
// with any value ("user-invocable-only", "off"), in the user's, the
// project's, the local or a --settings file; its /skills menu shows such
// a skill locked by the plugin. (Neither does permissions.deny
// "Skill(NAME)" drop it from the listing.) The one per-skill rule that
// does is the plugin's own disable-model-invocation: true, in the
// plugin's SKILL.md, a file adopt never writes; turning the plugin off
// (enabledPlugins) takes its /plugin:skill commands, agents, hooks and
// MCP servers away too. So adopt writes nothing for a plugin's skill and
// says why, once for each skill megagit routes; scripts/e2e-agents.sh
// checks the real Claude Code still ignores the setting.

// pluginNoSwitch is why adopt leaves Claude Code's listing of a plugin's
// skill.
const pluginNoSwitch = "Claude Code has no setting that hides a plugin's skill: it ignores skillOverrides for the skills of every plugin but its own synced ones (Claude Code 2.1.332; its /skills menu shows them locked by the plugin), and the plugin's disable-model-invocation is in the plugin's own SKILL.md, which adopt does not write: Claude Code keeps listing it, and megagit routes it as before"

// excepted says whether --except names s: by its name, or a plugin's
// skill also by its bare name (the part after "plugin:"), as the user may
// write either.
func excepted(except map[string]bool, s *workspace.Sourced) bool {
	if except[strings.ToLower(s.Name)] {
		return true
	}
	if s.Plugin == "" {
		return false
	}
	_, bare, ok := strings.Cut(s.Name, ":")
	return ok && except[strings.ToLower(bare)]
}

// pluginSkip is why adopt leaves the plugin skill s in Claude Code's
// listing: the same reasons as a folder's skill, else that Claude Code
// has no setting for it (pluginNoSwitch).
func pluginSkip(s *workspace.Sourced, except map[string]bool, r workspace.AgentRules) string {
	switch value, file, set := r.ClaudeOff(s.Name); {
	case excepted(except, s):
		return "named by --except: left in the agents' own listing"
	case s.File.DisableModelInvocation():
		return "already kept from the model by the plugin's own rule (disable-model-invocation: true): left alone, its command stays the user's"
	case set && s.UserOnly != "":
		return fmt.Sprintf("skillOverrides says %q for it in %s (your own setting; Claude Code lists a plugin's skill all the same, megagit never injects it): left alone", value, workspace.Describe(file))
	case s.UserOnly != "":
		return "already kept from the model by the agent's own rule (" + s.UserOnly + "): left alone, its command stays the user's"
	case !s.OfferedBeforeTrust():
		return s.NotRoutedWhy() + ": left in the agents' own listing, so it is not lost"
	}
	return pluginNoSwitch
}
