package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
)

// The `megagit serve` protocol: one JSON request line, one JSON response
// line, per connection, on a unix socket only the user can open. A request
// carries everything that decides the ranking besides the skills (the
// binary's version and the routing part of the client's configuration),
// so a server that would answer differently from the client declines and
// the client routes in-process.
const Proto = 1

// Request asks a server to route one prompt.
type Request struct {
	Proto    int            `json:"proto"`
	Version  string         `json:"version"`
	Root     string         `json:"root"`
	Config   string         `json:"config"`
	Prompt   string         `json:"prompt"`
	Project  string         `json:"project,omitempty"`
	Settings route.Settings `json:"settings"`
}

// Response is a routed prompt: the docs it names (indices below point
// into Docs) and the ranking trimmed to its head. Declined is set instead
// when the server cannot answer for this client.
type Response struct {
	Declined   string           `json:"declined,omitempty"`
	Stopping   bool             `json:"stopping,omitempty"` // with Declined: the server stops after this answer
	Docs       []ranker.Doc     `json:"docs,omitempty"`
	Ranked     []WireBreakdown  `json:"ranked,omitempty"`
	Emitted    []int            `json:"emitted,omitempty"`
	Reason     ranker.KReason   `json:"reason"`
	Decision   ranker.KDecision `json:"decision"`
	Rendered   ranker.Rendered  `json:"rendered"`
	Candidates int              `json:"candidates"`
}

// WireBreakdown carries a breakdown's doc index, which its JSON form omits.
type WireBreakdown struct {
	Doc int              `json:"doc"`
	B   ranker.Breakdown `json:"b"`
}

// servedHead is how much of the ranking a served answer keeps besides the
// emitted skills: the decision log records at most the top 20 scores.
const servedHead = route.RankHead

// maxRequest bounds a request line (the prompt is most of it).
const maxRequest = 4 << 20

// ReadRequest reads a connection's one request line.
func ReadRequest(r io.Reader) (Request, error) {
	line, err := bufio.NewReader(io.LimitReader(r, maxRequest)).ReadBytes('\n')
	if err != nil {
		return Request{}, err
	}
	var req Request
	err = json.Unmarshal(line, &req)
	return req, err
}

// Decline is why a server of version serving root must not answer req,
// which a client of another version or registry sent, or "" when it may.
func (req Request) Decline(version, root string) string {
	switch {
	case req.Proto != Proto || req.Version != version:
		return fmt.Sprintf("server is megagit %s (protocol %d)", version, Proto)
	case req.Root != root:
		return "server serves " + root
	}
	return ""
}

// WriteResponse writes a connection's one response line.
func WriteResponse(w io.Writer, resp Response) error {
	out, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// ToWire packs one routed prompt for the client: the docs it refers to
// (bodies only when the format injects them) with indices renumbered.
func ToWire(docs []ranker.Doc, rr route.Result, bodies bool) Response {
	out := Response{Reason: rr.Res.Reason, Decision: rr.Res.Decision, Rendered: rr.Rendered, Candidates: rr.Candidates}
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
	for i, b := range rr.Res.Ranked {
		if i < servedHead || slices.Contains(rr.Res.Emitted, b.Doc) {
			out.Ranked = append(out.Ranked, WireBreakdown{Doc: ref(b.Doc), B: b})
		}
	}
	for _, d := range rr.Res.Emitted {
		out.Emitted = append(out.Emitted, ref(d))
	}
	out.Rendered.Included = nil
	for _, d := range rr.Rendered.Included {
		out.Rendered.Included = append(out.Rendered.Included, ref(d))
	}
	return out
}

// fromWire unpacks a served answer into the docs and result the callers
// of Router.Route use.
func fromWire(w Response) ([]ranker.Doc, route.Result) {
	rr := route.Result{Candidates: w.Candidates, Rendered: w.Rendered, Served: true}
	rr.Res = ranker.Result{K: len(w.Emitted), Reason: w.Reason, Decision: w.Decision, Emitted: w.Emitted}
	for _, b := range w.Ranked {
		b.B.Doc = b.Doc
		rr.Res.Ranked = append(rr.Res.Ranked, b.B)
		if b.B.Forced {
			rr.Res.Forced = append(rr.Res.Forced, b.Doc)
		}
	}
	return w.Docs, rr
}

// checkWire rejects an answer whose indices fall outside its docs.
func checkWire(w Response) error {
	ok := func(d int) bool { return d >= 0 && d < len(w.Docs) }
	for _, b := range w.Ranked {
		if !ok(b.Doc) {
			return fmt.Errorf("ranked doc %d of %d", b.Doc, len(w.Docs))
		}
	}
	for _, list := range [][]int{w.Emitted, w.Rendered.Included} {
		for _, d := range list {
			if !ok(d) {
				return fmt.Errorf("doc %d of %d", d, len(w.Docs))
			}
		}
	}
	return nil
}
