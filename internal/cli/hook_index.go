package cli

// hookRouter builds the prompt hook's router for e (see inject.Env.Router):
// from the compiled index when it is fresh, rebuilding it otherwise.
func hookRouter(e *env) (*router, error) { return promptEnv(e).Router() }

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
