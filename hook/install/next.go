package install

import "github.com/megagit/megagit/hook"

// NextSteps is what the user must still do in the agent itself after an
// install before its hooks run, as the agents' documentation says it (a
// release may differ: the notes name the setting and the way to check).
//   - Codex (developers.openai.com/codex/hooks): hooks are on by default in
//     current releases and switched off with `[features] hooks = false` in
//     config.toml (older releases gated them behind `codex_hooks = true`);
//     command hooks that are not managed must be reviewed and trusted
//     (/hooks) before they run, and a project's .codex/ layer is read only
//     in a trusted project.
//   - Gemini CLI (geminicli.com/docs/hooks): hooks are on by default in
//     recent releases; older stable releases needed them enabled in
//     settings.json (`hooksConfig.enabled`, earlier `tools.enableHooks` and
//     `hooks.enabled`); it warns the first time it sees a new project hook.
//   - opencode loads plugins at startup: a running opencode needs a
//     restart.
//   - Copilot CLI loads a repository's .github/hooks/ (and .github/mcp.json)
//     only in a folder the user trusted; in -p mode only in one trusted
//     already (or with --trust-folder / COPILOT_ALLOW_ALL=true).
//   - Claude Code runs the hooks of its settings files as they are.
func NextSteps(agent, scope string) []string {
	switch agent {
	case hook.AgentCodex:
		steps := []string{
			"in Codex, review and trust megagit's hooks (/hooks): Codex runs command hooks only once they are trusted",
			"keep Codex's hooks feature on: it is on by default; `[features] hooks = false` in ~/.codex/config.toml turns it off (releases before that default need `[features] codex_hooks = true`)",
		}
		if scope == ScopeProject {
			steps = append(steps, "trust this project in Codex: it reads a project's .codex/hooks.json only in trusted projects")
		}
		return steps
	case hook.AgentGemini:
		return []string{
			"check with /hooks in Gemini CLI that megagit's hooks are listed and enabled; accept them when it warns about new project hooks",
			"Gemini CLI releases that do not run hooks by default need them enabled in settings.json (`\"hooksConfig\": {\"enabled\": true}`; some earlier releases used `tools.enableHooks` and `hooks.enabled`)",
		}
	case hook.AgentOpencode:
		return []string{"restart opencode: it loads its plugins (megagit's among them) when it starts"}
	case hook.AgentCopilot:
		if scope == ScopeProject {
			return []string{"trust this folder in Copilot CLI (it asks when it starts here): it runs a repository's .github/hooks only in a trusted folder; `copilot -p` needs a folder trusted before, or --trust-folder"}
		}
	}
	return nil
}
