package ranker

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// testDocs is a small registry with one obvious skill per topic.
func testDocs() []Doc {
	return []Doc{
		{ID: "webhook-signer", Description: "Validate and sign HMAC webhook payloads from Stripe or GitHub.", Headings: []string{"Verify signatures"}, Triggers: []string{"Use when a webhook signature check fails"}, Weight: 1},
		{ID: "pdf-extract", Description: "Extract text and tables from PDF files.", Headings: []string{"Tables"}, Weight: 1},
		{ID: "git-bisect", Description: "Find the commit that introduced a regression with git bisect.", Weight: 1},
		{ID: "docker-compose", Description: "Write and debug docker compose files for local services.", Weight: 1},
		{ID: "sql-migrations", Description: "Plan and apply database schema migrations safely.", Weight: 1},
		{ID: "old-pdf", Description: "Extract text from PDF files (legacy).", Status: StatusArchived, Weight: 1},
	}
}

func TestRankRoutesObviousPrompt(t *testing.T) {
	ix := NewIndex(testDocs(), DefaultConfig())
	r := ix.Rank("how do I validate the HMAC signature of a Stripe webhook", Options{})
	if len(r.Emitted) == 0 || ix.Docs()[r.Emitted[0]].ID != "webhook-signer" {
		t.Fatalf("emitted %v (%s), want webhook-signer first", r.Emitted, r.Reason)
	}
	if r.Ranked[0].ID != "webhook-signer" || r.K != len(r.Emitted) {
		t.Errorf("ranked[0] %s, K %d", r.Ranked[0].ID, r.K)
	}
	if rel := r.Ranked[0].Relevance; rel <= 0 || rel > 1 {
		t.Errorf("relevance %v not in (0, 1]", rel)
	}
}

func TestRankNullAndEmpty(t *testing.T) {
	ix := NewIndex(testDocs(), DefaultConfig())
	tests := []struct{ query, reason string }{
		{"", "empty-query"},
		{"the and of to", "empty-query"},
		{"what is a good name for a golden retriever puppy", "no-match"},
	}
	for _, tt := range tests {
		r := ix.Rank(tt.query, Options{})
		if string(r.Reason) != tt.reason || len(r.Emitted) != 0 {
			t.Errorf("Rank(%q) = %q %v, want %q and nothing", tt.query, r.Reason, r.Emitted, tt.reason)
		}
		if len(r.Ranked) != len(testDocs()) {
			t.Errorf("Rank(%q) listed %d skills", tt.query, len(r.Ranked))
		}
	}
}

func TestRankArchivedListedNeverEmitted(t *testing.T) {
	ix := NewIndex(testDocs(), DefaultConfig())
	for _, opt := range []Options{{}, {NoDynamicK: true, TopK: 10}} {
		r := ix.Rank("extract text from PDF files", opt)
		last := r.Ranked[len(r.Ranked)-1]
		if last.ID != "old-pdf" || last.Final != ArchivedScore || last.Relevance == 0 {
			t.Errorf("last = %+v, want archived old-pdf with its relevance shown", last)
		}
		for _, i := range r.Emitted {
			if ix.Docs()[i].Status == StatusArchived {
				t.Errorf("archived skill emitted (%+v)", opt)
			}
		}
	}
}

func TestRankFixedAndCap(t *testing.T) {
	ix := NewIndex(testDocs(), DefaultConfig())
	r := ix.Rank("extract text tables PDF git docker database webhook", Options{NoDynamicK: true, TopK: 3})
	if r.Reason != "fixed" || len(r.Emitted) != 3 {
		t.Errorf("fixed: %q %v", r.Reason, r.Emitted)
	}
	r = ix.Rank("extract text tables PDF git docker database webhook", Options{TopK: 1})
	if len(r.Emitted) > 1 {
		t.Errorf("cap 1 emitted %v", r.Emitted)
	}
}

func TestRankDeterministic(t *testing.T) {
	docs := testDocs()
	// Two skills with identical text tie; the id decides.
	docs = append(docs, Doc{ID: "bisect-git", Description: "Find the commit that introduced a regression with git bisect.", Weight: 1})
	ix := NewIndex(docs, DefaultConfig())
	first := ix.Rank("find the commit that introduced a regression", Options{})
	for range 20 {
		again := NewIndex(docs, DefaultConfig()).Rank("find the commit that introduced a regression", Options{})
		if !reflect.DeepEqual(first, again) {
			t.Fatal("ranking differs between runs")
		}
	}
	if first.Ranked[0].ID != "bisect-git" || first.Ranked[1].ID != "git-bisect" {
		t.Errorf("tie order %s, %s", first.Ranked[0].ID, first.Ranked[1].ID)
	}
	// MMR drops the exact duplicate.
	if slices.Contains(first.Emitted, len(docs)-1) && slices.Contains(first.Emitted, 2) {
		t.Errorf("near-duplicates both emitted: %v", first.Emitted)
	}
}

func TestRankEvidenceMovesScore(t *testing.T) {
	docs := testDocs()
	docs[1].HelpfulContexts = []string{"pull the invoice totals out of a scanned pdf"}
	docs[1].HelpfulCount = 10
	ix := NewIndex(docs, DefaultConfig())
	cold := NewIndex(testDocs(), DefaultConfig())
	q := "pull invoice totals from a pdf"
	var warm, base Breakdown
	for _, b := range ix.Rank(q, Options{}).Ranked {
		if b.ID == "pdf-extract" {
			warm = b
		}
	}
	for _, b := range cold.Rank(q, Options{}).Ranked {
		if b.ID == "pdf-extract" {
			base = b
		}
	}
	if base.Final != base.Relevance {
		t.Errorf("cold start final %v != relevance %v", base.Final, base.Relevance)
	}
	if warm.HelpCtx <= 0 || warm.Count <= 0 || warm.Final <= base.Final {
		t.Errorf("evidence did not help: warm %+v base %+v", warm, base)
	}
	sum := warm.Relevance + warm.Count + warm.Context + warm.Related
	if d := sum*warm.Weight*warm.StatusMult - warm.Final; d > 1e-12 || d < -1e-12 {
		t.Errorf("terms do not add up: %v vs %v", sum, warm.Final)
	}
}

func TestRankHarmfulContextAndRelated(t *testing.T) {
	docs := testDocs()
	docs[3].HarmfulContexts = []string{"docker compose healthcheck loop"}
	docs[3].Related = []Reason{{Text: "compose healthcheck advice was wrong", Helpful: false}}
	ix := NewIndex(docs, DefaultConfig())
	r := ix.Rank("docker compose healthcheck keeps looping", Options{})
	for _, b := range r.Ranked {
		if b.ID == "docker-compose" && (b.HarmCtx <= 0 || b.RelatedHarm <= 0 || b.Context >= 0 || b.Related >= 0) {
			t.Errorf("harm not applied: %+v", b)
		}
	}
}

func TestRankFastPath(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FastPath = LexicalFastPath{Min: 0.5, Margin: 0.5}
	ix := NewIndex(testDocs(), cfg)
	r := ix.Rank("git bisect regression commit", Options{})
	if r.Reason != "lexical-dominant" || len(r.Emitted) != 1 || ix.Docs()[r.Emitted[0]].ID != "git-bisect" {
		t.Errorf("fast path: %q %v", r.Reason, r.Emitted)
	}
	cfg.FastPath.Min = 0
	if r := NewIndex(testDocs(), cfg).Rank("git bisect regression commit", Options{}); r.Reason == "lexical-dominant" {
		t.Error("fast path fired while off")
	}
}

func TestRankDenseFusion(t *testing.T) {
	dense := []float64{0, 0, 0, 0.9, 0, 0}
	for _, tt := range []struct {
		fusion Fusion
		want   float64
	}{
		{Fusion{Mode: FusionLexical}, 0},
		{Fusion{Mode: FusionLinear, DenseWeight: 0.5}, 0.45},
		{Fusion{Mode: FusionMax}, 0.9},
	} {
		cfg := DefaultConfig()
		cfg.Fusion = tt.fusion
		r := NewIndex(testDocs(), cfg).Rank("spreadsheet charts", Options{Dense: dense})
		for _, b := range r.Ranked {
			if b.ID == "docker-compose" && (b.Relevance != tt.want || b.Dense == nil || *b.Dense != 0.9) {
				t.Errorf("%s: relevance %v, want %v", tt.fusion.Mode, b.Relevance, tt.want)
			}
		}
	}
}

func TestTokenize(t *testing.T) {
	got := Tokenize("Running the PDF-extractor on 2 files, e.g. Tables!")
	want := []string{"run", "pdf", "extractor", "2", "file", "e", "g", "tabl"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tokenize = %q, want %q", got, want)
	}
}

func TestMMR(t *testing.T) {
	rel := map[int]float64{0: 1, 1: 0.9, 2: 0.8, 3: 0.7}
	sim := func(a, b int) float64 {
		if (a == 0 && b == 1) || (a == 1 && b == 0) {
			return 0.95 // near-duplicates
		}
		if (a == 0 && b == 2) || (a == 2 && b == 0) {
			return 0.6
		}
		return 0
	}
	got, dropped := mmr([]int{0, 1, 2, 3}, func(i int) float64 { return rel[i] }, sim, MMR{Lambda: 0.7, DupSim: 0.9})
	// 1 is dropped; 3 (0.49) beats 2 (0.56 - 0.18 = 0.38).
	if want := []int{0, 3, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("mmr = %v, want %v", got, want)
	}
	if want := []Dropped{{Doc: 1, Like: 0, Sim: 0.95}}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped = %v, want %v", dropped, want)
	}
	if got, _ := mmr(nil, nil, nil, MMR{}); len(got) != 0 {
		t.Errorf("mmr(nil) = %v", got)
	}
}

// synthDocs makes n skills from a fixed vocabulary, deterministically.
func synthDocs(n int) []Doc {
	rng := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 3000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx", i)
	}
	pick := func(k int) string {
		var b strings.Builder
		for range k {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{
			ID: fmt.Sprintf("skill-%05d", i), Description: pick(25),
			Headings: []string{pick(3), pick(3), pick(3)}, Triggers: []string{pick(10)},
			Weight: 1,
		}
		if i%10 == 0 {
			docs[i].HelpfulContexts = []string{pick(12)}
			docs[i].HelpfulCount = 4
		}
	}
	return docs
}

func BenchmarkRank(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		ix := NewIndex(synthDocs(n), DefaultConfig())
		q := "w12x w77x w300x deploy w1500x " + "w2999x"
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				ix.Rank(q, Options{})
			}
		})
	}
}

func TestCandidateNeedsOneChannel(t *testing.T) {
	d := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		b    Breakdown
		want bool
	}{
		{"lexical only, matched", Breakdown{Relevance: 0.2, Lexical: 0.2}, true},
		{"lexical only, unmatched", Breakdown{Relevance: 0}, false},
		{"shares a term, weak dense", Breakdown{Relevance: 0.1, Lexical: 0.05, Dense: d(0.1)}, true},
		{"no term, dense over the floor", Breakdown{Relevance: 0.12, Dense: d(0.3)}, true},
		{"no term, dense under the floor", Breakdown{Relevance: 0.06, Dense: d(0.15)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := candidate(tt.b, 0.2); got != tt.want {
				t.Fatalf("candidate = %v, want %v", got, tt.want)
			}
		})
	}
}

// A skill's body finds it for a prompt in words its name and description
// leave out, but counts for less than they do.
func TestRankBodyField(t *testing.T) {
	docs := []Doc{
		{ID: "test-first", Description: "Use before writing implementation code.", Weight: 1,
			Body: "Write a failing spec. Watch it go red, then make it go green. Red, green, refactor."},
		{ID: "release-notes", Description: "Draft release notes from merged pull requests.", Weight: 1},
		{ID: "spec-writer", Description: "Write a spec that goes green on every build.", Weight: 1},
	}
	ix := NewIndex(docs, DefaultConfig())
	r := ix.Rank("the build should go green", Options{NoDynamicK: true})
	if r.Ranked[0].ID != "spec-writer" || r.Ranked[1].ID != "test-first" || r.Ranked[1].Lexical <= 0 {
		t.Errorf("ranked %s, %s (%v) first: want the description's match, then the body's", r.Ranked[0].ID, r.Ranked[1].ID, r.Ranked[1].Lexical)
	}
	r = ix.Rank("watch it go red then refactor", Options{NoDynamicK: true})
	if r.Ranked[0].ID != "test-first" || r.Ranked[0].Lexical <= 0 {
		t.Errorf("a prompt only the body matches: %s first (lexical %v)", r.Ranked[0].ID, r.Ranked[0].Lexical)
	}
	// Without the body field the same prompt finds nothing.
	cfg := DefaultConfig()
	cfg.Fields.Body.Weight = 0
	if r := NewIndex(docs, cfg).Rank("watch it go red then refactor", Options{}); r.Ranked[0].Lexical != 0 {
		t.Errorf("body weight 0: %s scored %v", r.Ranked[0].ID, r.Ranked[0].Lexical)
	}
}

// The index keeps a body's BodyTerms most frequent terms only.
func TestBodyTerms(t *testing.T) {
	var b strings.Builder
	for i := range BodyTerms + 50 {
		fmt.Fprintf(&b, "zq%04d ", i) // each once
	}
	b.WriteString("frequent frequent frequent")
	terms := bodyTerms(stems{}, b.String())
	if len(terms) != BodyTerms || terms[0].Term != "frequent" || terms[0].N != 3 || terms[1].Term != "zq0000" {
		t.Fatalf("%d terms, first %v %v", len(terms), terms[0], terms[1])
	}
	ix := NewIndex([]Doc{{ID: "long", Description: "a long skill", Body: b.String(), Weight: 1}, {ID: "other", Description: "other", Weight: 1}}, DefaultConfig())
	kept := ix.Rank("zq0010", Options{NoDynamicK: true}).Ranked[0]
	dropped := ix.Rank(fmt.Sprintf("zq%04d", BodyTerms+20), Options{NoDynamicK: true}).Ranked[0]
	if kept.ID != "long" || kept.Lexical <= 0 || dropped.Lexical != 0 {
		t.Errorf("a kept body term scores %v, a dropped one %v", kept.Lexical, dropped.Lexical)
	}
}

// Without a gate, a skill after the first must reach the floor the first
// had to reach: a barely-matching skill does not ride along.
func TestRankBackupsReachTheFloor(t *testing.T) {
	docs := []Doc{
		{ID: "compose-debug", Description: "Diagnose docker compose containers that keep restarting.", Weight: 1},
		{ID: "webhooks", Description: "Verify webhook signatures.", Body: "Return status code 400 on a bad signature.", Weight: 1},
		{ID: "pdf-tables", Description: "Extract tables from PDF files.", Weight: 1},
	}
	ix := NewIndex(docs, DefaultConfig())
	r := ix.Rank("container keeps restarting, exit code 137", Options{})
	if r.Ranked[1].ID != "webhooks" || r.Ranked[1].Final <= 0 || r.Ranked[1].Final >= LexicalAbsFloor {
		t.Fatalf("runner-up %s at %v: want webhooks, matched below the floor %v", r.Ranked[1].ID, r.Ranked[1].Final, LexicalAbsFloor)
	}
	if r.Decision.K < 2 {
		t.Fatalf("dynamic K chose %d (%s): the case needs room for a backup", r.Decision.K, r.Reason)
	}
	if len(r.Emitted) != 1 || ix.Docs()[r.Emitted[0]].ID != "compose-debug" {
		t.Errorf("emitted %v, want compose-debug alone", r.Emitted)
	}
}

// A doc's BodyTerms, kept from an earlier build, stand for its body:
// NewIndex does not read the body again.
func TestRankKeptBodyTerms(t *testing.T) {
	docs := []Doc{
		{ID: "kept", Description: "a skill", Body: "alpha alpha", BodyTerms: []TermCount{{Term: "beta", N: 2}}, Weight: 1},
		{ID: "other", Description: "another skill", Weight: 1},
	}
	ix := NewIndex(docs, DefaultConfig())
	if b := ix.Rank("beta", Options{NoDynamicK: true}).Ranked[0]; b.ID != "kept" || b.Lexical <= 0 {
		t.Errorf("a kept term: %s at %v", b.ID, b.Lexical)
	}
	if b := ix.Rank("alpha", Options{NoDynamicK: true}).Ranked[0]; b.Lexical != 0 {
		t.Errorf("the body was read again: %s at %v", b.ID, b.Lexical)
	}
	docs[0].BodyTerms = nil
	FillBodyTerms(docs)
	if want := []TermCount{{Term: "alpha", N: 2}}; !slices.Equal(docs[0].BodyTerms, want) {
		t.Errorf("FillBodyTerms: %v, want %v", docs[0].BodyTerms, want)
	}
}
