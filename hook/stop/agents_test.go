package stop

import (
	"testing"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/learn/history"
)

// learn/history names the agents itself (it imports no hook package), and
// the prompts it learns are keyed by agent like the stop hook's
// (learnt.LearntKey): the names must be the same strings.
func TestHistoryNamesAgentsAsTheHooks(t *testing.T) {
	for _, pair := range [][2]string{
		{history.AgentClaude, hook.AgentClaude},
		{history.AgentCodex, hook.AgentCodex},
		{history.AgentGemini, hook.AgentGemini},
	} {
		if pair[0] != pair[1] {
			t.Errorf("learn/history names an agent %q, the hooks %q", pair[0], pair[1])
		}
	}
}
