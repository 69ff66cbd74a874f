package cli

import (
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/workspace"
)

// hookRouter builds the prompt hook's router for e (see inject.Env.Router):
// from the compiled index when it is fresh, rebuilding it otherwise.
func hookRouter(e *workspace.Workspace) (*route.Router, error) { return e.PromptEnv().Router() }

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
