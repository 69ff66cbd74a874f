package ranker

import (
	"slices"
	"testing"
)

func TestDenyAndForce(t *testing.T) {
	docs := []Doc{
		{ID: "flaky-tests", Description: "Find why tests pass locally but fail randomly in CI: ordering, shared state, time."},
		{ID: "docker-slim", Description: "Shrink Docker images with multi-stage builds."},
		{ID: "webhook-signer", Description: "Validate HMAC signatures of incoming webhooks."},
	}
	ix := NewIndex(docs, DefaultConfig())
	prompt := "my tests fail randomly in CI, ordering and shared state, in the webhook suite"
	names := func(r Result) []string {
		var out []string
		for _, d := range r.Emitted {
			out = append(out, docs[d].ID)
		}
		return out
	}
	base := ix.Rank(prompt, Options{})
	if slices.Contains(names(base), "webhook-signer") {
		t.Fatalf("without force the weak match is emitted: %v; the test needs a prompt that leaves it out", names(base))
	}
	for _, tc := range []struct {
		name        string
		opt         Options
		want        []string
		wantForced  int
		wantReasonF bool
	}{
		{"force a weak match", Options{Force: []bool{false, false, true}}, []string{"flaky-tests", "webhook-signer"}, 1, true},
		{"force within top_k", Options{TopK: 1, Force: []bool{false, false, true}}, []string{"webhook-signer"}, 1, true},
		{"force what the prompt does not match", Options{Force: []bool{false, true, false}}, names(base), 0, false},
		{"force what is emitted anyway", Options{Force: []bool{true, false, false}}, names(base), 0, false},
		// The weak match alone stays below the floor: denying the leader
		// lifts nothing else.
		{"deny", Options{Deny: []bool{true, false, false}}, nil, 0, false},
		{"deny wins over force", Options{Deny: []bool{false, false, true}, Force: []bool{false, false, true}}, names(base), 0, false},
		{"held", Options{Held: []bool{true, false, false}}, nil, 0, false},
		{"held wins over force", Options{Held: []bool{false, false, true}, Force: []bool{false, false, true}}, names(base), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ix.Rank(prompt, tc.opt)
			if got := names(r); !slices.Equal(got, tc.want) {
				t.Errorf("emitted %v, want %v (reason %s)", got, tc.want, r.Reason)
			}
			if len(r.Forced) != tc.wantForced || r.K != len(r.Emitted) {
				t.Errorf("forced %v, k %d", r.Forced, r.K)
			}
			if got := len(r.Reason) > 6 && r.Reason[len(r.Reason)-6:] == ReasonForced; got != tc.wantReasonF {
				t.Errorf("reason %s", r.Reason)
			}
		})
	}
}
