package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/megagit/megagit/config"
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

// serveClient is e's client of its registry's `megagit serve`.
func serveClient(e *env) route.Client {
	return route.Client{Version: version, Root: e.reg.Root(), LocalDir: e.reg.LocalDir(), Config: serveKey(e.cfg)}
}
