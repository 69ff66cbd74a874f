package route

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route/index"
)

// hashEmbed is a stand-in model: the prompt's words hashed into dim
// buckets, L2-normalised, so texts that share words have a cosine above 0.
func hashEmbed(dim int) func(string) ([]float32, error) {
	return func(text string) ([]float32, error) {
		v := make([]float32, dim)
		for _, w := range strings.Fields(strings.ToLower(text)) {
			h := fnv.New32a()
			h.Write([]byte(strings.Trim(w, ".,!?")))
			v[h.Sum32()%uint32(dim)]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for i := range v {
				v[i] /= float32(math.Sqrt(n))
			}
		}
		return v, nil
	}
}

// routeWithProjectTwice is RouteWithProject as it was before it scored a
// prompt once: two full rankings, each embedding its own text.
func routeWithProjectTwice(r *Router, prompt, project string, s Settings) Result {
	rr := r.Route(prompt, s)
	if project != "" && rr.Res.K > 0 {
		if with := r.result(r.rank(prompt, project, s), s); with.Res.K > 0 {
			rr = r.projectFiltered(rr, with, s)
		}
	}
	return rr
}

// TestRouteWithProjectScoresOnce checks RouteWithProject, which ranks only
// each ranking's head and, with large vectors, embeds the prompt with and
// without the project's name and scores both in one pass over them,
// decides exactly as two full rankings do: the same skills emitted, K, reason, signals,
// rendered text and head of the ranking; lexical and with a dense channel
// (helpful and harmful contexts included), on a catalog large enough that
// the head is a small part of it and the vectors are split between cores.
func TestRouteWithProjectScoresOnce(t *testing.T) {
	words := strings.Fields(`docker image build cache layer test flaky ci pipeline deploy kubernetes pod
		service webhook signature stripe github postgres migration index table query react component
		render state hook python package wheel release notes changelog git commit branch rebase merge
		terraform module provider aws lambda queue kafka topic consumer redis memory leak profile cpu
		latency http client retry timeout tls certificate dns nginx proxy log metric alert grafana payments api`)
	rng := rand.New(rand.NewPCG(7, 8))
	pick := func(k int) string {
		out := make([]string, k)
		for i := range out {
			out[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(out, " ")
	}
	const n, dim = 5000, 32
	embed := hashEmbed(dim)
	docs := make([]ranker.Doc, n)
	vecs := &index.Vectors{Key: "hash@1", Dim: dim}
	for i := range docs {
		docs[i] = ranker.Doc{ID: fmt.Sprintf("%s-%d", words[i%len(words)], i), Description: pick(12) + ".", Triggers: []string{pick(5)}, Weight: 1}
		if i%50 == 0 {
			docs[i].HelpfulContexts, docs[i].HelpfulCount = []string{pick(6)}, 3
		}
		if i%70 == 0 {
			docs[i].HarmfulContexts, docs[i].HarmfulCount = []string{pick(6)}, 2
		}
		full, _ := embed(docs[i].ID + " " + docs[i].Description)
		name, _ := embed(docs[i].ID)
		vecs.Rows = append(append(vecs.Rows, full...), name...)
		for _, c := range docs[i].HelpfulContexts {
			row, _ := embed(c)
			vecs.Ctx, vecs.CtxRows = append(vecs.Ctx, index.CtxRow{Doc: int32(i)}), append(vecs.CtxRows, row...)
		}
		for _, c := range docs[i].HarmfulContexts {
			row, _ := embed(c)
			vecs.Ctx, vecs.CtxRows = append(vecs.Ctx, index.CtxRow{Doc: int32(i), Harm: true}), append(vecs.CtxRows, row...)
		}
	}
	sem := &Semantic{Model: "hash", Vecs: vecs, Embed: embed,
		Prof: DenseProfile{FusionW: 0.4, AbsFloor: 0.2, Tier: ranker.TierStrong, Gate: ShippedGate("megagit-static-v3")}}
	var prompts []string
	for range 60 {
		prompts = append(prompts, pick(1+rng.IntN(8)))
	}
	prompts = append(prompts, "", "thanks, have a nice weekend!", "my stripe webhook signature check keeps failing",
		strings.Repeat("Yesterday we had an outage and everyone is tired after the long review. ", 5)+"Roll back the kafka consumer deploy.")
	defer func(was int) { onePassBytes = was }(onePassBytes)
	for _, tc := range []struct {
		name    string
		sem     Dense
		onePass int
	}{{"lexical", nil, onePassBytes}, {"dense", sem, onePassBytes}, {"dense in one pass", sem, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			onePassBytes = tc.onePass
			r, _ := New(docs, ranker.DefaultConfig(), tc.sem, DynamicKOverride{}, nil)
			for i, p := range prompts {
				project := []string{"", "payments-api", "kafka tools", "zebra"}[i%4]
				s := Settings{TopK: 5, Budget: 2000, Format: "catalog"}
				got, want := r.RouteWithProject(p, project, s), routeWithProjectTwice(r, p, project, s)
				head := min(RankHead, len(want.Res.Ranked))
				if !reflect.DeepEqual(got.Res.Emitted, want.Res.Emitted) || got.Res.Reason != want.Res.Reason ||
					!reflect.DeepEqual(got.Res.Decision, want.Res.Decision) || got.Res.Signals != want.Res.Signals ||
					got.Rendered.Text != want.Rendered.Text || got.Candidates != want.Candidates ||
					!reflect.DeepEqual(got.Res.Ranked[:head], want.Res.Ranked[:head]) {
					t.Fatalf("%q in %q: scored once emitted %v (%s), twice %v (%s)", p, project, got.Res.Emitted, got.Res.Reason, want.Res.Emitted, want.Res.Reason)
				}
			}
		})
	}
}

// TestHeldMask: a skill with a rule that holds it back is held unless an
// allow names the skill (or a glob of it) and that rule (or *).
func TestHeldMask(t *testing.T) {
	docs := []ranker.Doc{{ID: "ssh-backup", Held: []string{"secret-exfil", "download-exec"}}, {ID: "notes"}, {ID: "pdf-fill", Held: []string{"lock-drift"}}}
	for _, tc := range []struct {
		allow []string
		want  []bool
	}{
		{nil, []bool{true, false, true}},
		{[]string{"ssh-*:secret-exfil"}, []bool{true, false, true}},
		{[]string{"ssh-*:secret-exfil", "ssh-backup:download-exec"}, []bool{false, false, true}},
		{[]string{"ssh-backup:*", "pdf-fill:lock-drift"}, nil},
		{[]string{"notes:*", "pdf-fill:secret-exfil"}, []bool{true, false, true}},
	} {
		if got := HeldMask(docs, tc.allow); !slices.Equal(got, tc.want) {
			t.Errorf("allow %v: %v, want %v", tc.allow, got, tc.want)
		}
	}
}
