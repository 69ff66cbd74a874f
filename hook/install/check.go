package install

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/registry"
)

// DoctorCheck looks for megagit's hooks in the agent settings files of the
// project and the user, so doctor can say when prompts go unrouted, and
// when an agent runs them twice (installed at both scopes, every prompt
// would get its skills injected twice and every verdict recorded twice),
// and when a file has no SessionStart hook (installed by an older
// megagit): the verdict-tag request then rides on the first injection of a
// session and is not given again after a compaction.
func DoctorCheck(workTree string) registry.Check {
	home, _ := os.UserHomeDir()
	var found, noStart, double, fixes []string
	for _, agent := range []string{hook.AgentClaude, hook.AgentCodex, hook.AgentGemini} {
		at := map[string]string{}
		for _, scope := range []string{ScopeProject, ScopeUser} {
			p, err := SettingsPath(agent, scope, workTree, home)
			if err != nil {
				continue
			}
			_, data, err := readSettings(p)
			if err != nil || data == nil {
				continue
			}
			kinds := ourKinds(data)
			if len(kinds) > 0 {
				found = append(found, p)
				at[scope] = p
			}
			if len(kinds) > 0 && !kinds["session-start"] {
				noStart = append(noStart, p)
			}
		}
		if at[ScopeProject] != "" && at[ScopeUser] != "" && at[ScopeProject] != at[ScopeUser] {
			double = append(double, fmt.Sprintf("%s (%s and %s)", agent, at[ScopeProject], at[ScopeUser]))
			fixes = append(fixes, fmt.Sprintf("`megagit hook uninstall --agent %s --scope user` (or --scope project)", agent))
		}
	}
	if len(double) > 0 {
		return registry.Check{Name: "hooks", Status: registry.CheckFail,
			Detail: "installed at both project and user scope, so every prompt is routed and injected twice: " + strings.Join(double, "; "),
			Hint:   "keep one: " + strings.Join(fixes, "; ")}
	}
	if len(found) == 0 {
		return registry.Check{Name: "hooks", Status: registry.CheckWarn, Detail: "no agent settings file runs megagit's hooks",
			Hint: "run `megagit hook install` so prompts are routed and sessions leave verdicts"}
	}
	if len(noStart) > 0 {
		return registry.Check{Name: "hooks", Status: registry.CheckWarn,
			Detail: "installed in " + strings.Join(found, ", ") + "; without the session-start hook in " + strings.Join(noStart, ", "),
			Hint:   "run `megagit hook install` again: the session-start hook asks for verdict tags once per session and again after a compaction"}
	}
	return registry.Check{Name: "hooks", Status: registry.CheckOK, Detail: "installed in " + strings.Join(found, ", ")}
}

// settingsHaveOurs walks any JSON for a "command" string that runs megagit.
func settingsHaveOurs(data []byte) bool { return len(ourKinds(data)) > 0 }

// ourKinds walks any JSON for "command" strings that run megagit's hooks
// and returns which (prompt, stop, session-start).
func ourKinds(data []byte) map[string]bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	kinds := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if s, ok := val.(string); ok && k == "command" && IsOurs(s) {
					kinds[ourKind(s)] = true
				}
				walk(val)
			}
		case []any:
			for _, val := range x {
				walk(val)
			}
		}
	}
	walk(v)
	return kinds
}
