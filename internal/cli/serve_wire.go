package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route"
)

// The `megagit serve` protocol is in route (the megagit-hook binary
// is a client too); what depends on the config is here.

// serveKey fingerprints the configuration that decides a ranking (the
// per-call output settings travel in the request).
func serveKey(cfg *config.Config) string {
	b, _ := json.Marshal(struct {
		Roots    []string
		Blend    config.Blend
		Lexical  config.Lexical
		DynamicK config.DynamicK
		Model    config.Model
		MMR      float64
	}{cfg.Roots, cfg.Blend, cfg.Lexical, cfg.DynamicK, cfg.Model, cfg.Route.MMR})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// serveSocketPath is where a registry's server listens.
func serveSocketPath(reg *registry.Registry) string {
	return route.SocketPath(reg.Root(), reg.LocalDir())
}

// errNotServed means no `megagit serve` answered for this registry, or it
// declined: the caller routes in-process.
var errNotServed = route.ErrNotServed

// served asks this registry's `megagit serve`, if one runs, to route a
// prompt, within timeout (see route.Ask).
func served(e *env, prompt, project string, s routeSettings, timeout time.Duration) ([]ranker.Doc, routeResult, error) {
	req := route.Request{Version: version, Root: e.reg.Root(), Config: serveKey(e.cfg), Prompt: prompt, Project: project, Settings: s}
	return route.Ask(serveSocketPath(e.reg), req, timeout)
}
