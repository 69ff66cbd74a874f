package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
)

// The `megagit serve` protocol: one JSON request line, one JSON response
// line, per connection, on a unix socket only the user can open. A request
// carries everything that decides the ranking besides the skills (the
// binary's version and the routing part of the client's configuration),
// so a server that would answer differently from the client declines and
// the client routes in-process.
const serveProto = 1

// serveSocketName is the socket's name in .megagit/local/.
const serveSocketName = "serve.sock"

type serveRequest struct {
	Proto    int           `json:"proto"`
	Version  string        `json:"version"`
	Root     string        `json:"root"`
	Config   string        `json:"config"`
	Prompt   string        `json:"prompt"`
	Project  string        `json:"project,omitempty"`
	Settings routeSettings `json:"settings"`
}

// serveResponse is a routed prompt: the docs it names (indices below point
// into Docs) and the ranking trimmed to its head. Declined is set instead
// when the server cannot answer for this client.
type serveResponse struct {
	Declined   string           `json:"declined,omitempty"`
	Docs       []ranker.Doc     `json:"docs,omitempty"`
	Ranked     []wireBreakdown  `json:"ranked,omitempty"`
	Emitted    []int            `json:"emitted,omitempty"`
	Reason     string           `json:"reason"`
	Decision   ranker.KDecision `json:"decision"`
	Rendered   ranker.Rendered  `json:"rendered"`
	Candidates int              `json:"candidates"`
}

// wireBreakdown carries a breakdown's doc index, which its JSON form omits.
type wireBreakdown struct {
	Doc int              `json:"doc"`
	B   ranker.Breakdown `json:"b"`
}

// servedHead is how much of the ranking a served answer keeps besides the
// emitted skills: the decision log records at most the top 20 scores.
const servedHead = 32

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

// serveSocketPath is where a registry's server listens: in its local
// folder, or, when that path is too long for a unix socket address, in
// the user's runtime (else cache) folder under a name derived from it.
func serveSocketPath(reg *registry.Registry) string {
	p := filepath.Join(reg.LocalDir(), serveSocketName)
	if len(p) < 100 {
		return p
	}
	sum := sha256.Sum256([]byte(reg.Root()))
	name := "megagit-" + hex.EncodeToString(sum[:8]) + ".sock"
	if dir := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		return filepath.Join(dir, name)
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "megagit", name)
	}
	return p
}

// toWire packs one routed prompt for the client: the docs it refers to
// (bodies only when the format injects them) with indices renumbered.
func toWire(docs []ranker.Doc, rr routeResult, bodies bool) serveResponse {
	out := serveResponse{Reason: rr.res.Reason, Decision: rr.res.Decision, Rendered: rr.rendered, Candidates: rr.candidates}
	local := map[int]int{}
	ref := func(d int) int {
		if i, ok := local[d]; ok {
			return i
		}
		doc := docs[d]
		if !bodies {
			doc.Body = ""
		}
		local[d] = len(out.Docs)
		out.Docs = append(out.Docs, doc)
		return local[d]
	}
	for i, b := range rr.res.Ranked {
		if i < servedHead || slices.Contains(rr.res.Emitted, b.Doc) {
			out.Ranked = append(out.Ranked, wireBreakdown{Doc: ref(b.Doc), B: b})
		}
	}
	for _, d := range rr.res.Emitted {
		out.Emitted = append(out.Emitted, ref(d))
	}
	out.Rendered.Included = nil
	for _, d := range rr.rendered.Included {
		out.Rendered.Included = append(out.Rendered.Included, ref(d))
	}
	return out
}

// fromWire unpacks a served answer into the docs and result the callers
// of router.route use.
func fromWire(w serveResponse) ([]ranker.Doc, routeResult) {
	rr := routeResult{candidates: w.Candidates, rendered: w.Rendered, served: true}
	rr.res = ranker.Result{K: len(w.Emitted), Reason: w.Reason, Decision: w.Decision, Emitted: w.Emitted}
	for _, b := range w.Ranked {
		b.B.Doc = b.Doc
		rr.res.Ranked = append(rr.res.Ranked, b.B)
	}
	return w.Docs, rr
}
