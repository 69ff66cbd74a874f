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
// when an agent runs them twice: installed at both scopes, every prompt
// would get its skills injected twice (and every verdict recorded twice).
func DoctorCheck(workTree string) registry.Check {
	home, _ := os.UserHomeDir()
	var found, double, fixes []string
	for _, agent := range []string{hook.AgentClaude, hook.AgentCodex, hook.AgentGemini} {
		at := map[string]string{}
		for _, scope := range []string{ScopeProject, ScopeUser} {
			p, err := SettingsPath(agent, scope, workTree, home)
			if err != nil {
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if settingsHaveOurs(data) {
				found = append(found, p)
				at[scope] = p
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
	return registry.Check{Name: "hooks", Status: registry.CheckOK, Detail: "installed in " + strings.Join(found, ", ")}
}

// settingsHaveOurs walks any JSON for a "command" string that runs megagit.
func settingsHaveOurs(data []byte) bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if s, ok := val.(string); ok && k == "command" && IsOurs(s) {
					return true
				}
				if walk(val) {
					return true
				}
			}
		case []any:
			for _, val := range x {
				if walk(val) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
