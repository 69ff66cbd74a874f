package ranker

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// typoDocs is a tiny catalog whose words a prompt may misspell.
func typoDocs() []Doc {
	return []Doc{
		{ID: "kubernetes-deploy", Description: "Roll out a deployment to a Kubernetes cluster and watch the rollout.", Weight: 1},
		{ID: "docker-build", Description: "Build a Docker image with a small cache layer.", Weight: 1},
		{ID: "release-notes", Description: "Draft release notes from merged pull requests.", Weight: 1},
		{ID: "postgres-migrate", Description: "Write and check a Postgres schema migration.", Weight: 1},
	}
}

func TestTypoCorrections(t *testing.T) {
	ix := NewIndex(typoDocs(), DefaultConfig())
	tests := []struct {
		name, prompt string
		want         []Correction // Word and To only
	}{
		{"deletion", "roll out to kuberntes", []Correction{{Word: "kuberntes", To: "kubernetes"}}},
		{"swap", "dokcer image", []Correction{{Word: "dokcer", To: "docker"}}},
		{"insertion", "a schema migrationn", []Correction{{Word: "migrationn", To: "migration"}}},
		{"substitution and case", "Postgrec schema", []Correction{{Word: "postgrec", To: "postgres"}}},
		{"two typos", "deploymnet to kubernetse", []Correction{{Word: "deploymnet", To: "deployment"}, {Word: "kubernetse", To: "kubernetes"}}},
		// "draw" is one edit from "draft", "dokr" from "docker" (a
		// deletion): both too short to tell a typo from another word.
		{"short word", "draw dokr", nil},
		// "notes" and "image" are the catalog's own words; "cluster" and
		// "clusters" share a term.
		{"known words", "image notes clusters", nil},
		{"two edits", "kubrentse", nil},
		{"not ascii", "kübernetes", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Correction
			for _, c := range ix.Read(tt.prompt).Corrections {
				got = append(got, Correction{Word: c.Word, To: c.To})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("corrections %v, want %v", got, tt.want)
			}
		})
	}
}

// A word the catalog lacks but the dictionary holds is meant as written.
func TestTypoDictionary(t *testing.T) {
	docs := []Doc{{ID: "tourism-board", Description: "Statistics of tourism for a region.", Weight: 1}, {ID: "other", Description: "Something else.", Weight: 1}}
	ix := NewIndex(docs, DefaultConfig())
	if c := ix.Read("a tourist guide").Corrections; len(c) != 1 || c[0].To != "tourism" {
		t.Fatalf("without a dictionary: %v", c)
	}
	ix.SetDictionary(func(w string) bool { return w == "tourist" })
	if c := ix.Read("a tourist guide").Corrections; len(c) != 0 {
		t.Errorf("a dictionary word was corrected: %v", c)
	}
}

// Of two catalog words one edit away, the one more skills contain wins.
func TestTypoPrefersFrequent(t *testing.T) {
	docs := []Doc{
		{ID: "a", Description: "parse the config", Weight: 1},
		{ID: "b", Description: "parse the logs", Weight: 1},
		{ID: "c", Description: "paste a snippet", Weight: 1},
	}
	ix := NewIndex(docs, DefaultConfig())
	if c := ix.Read("pasre").Corrections; len(c) != 1 || c[0].To != "parse" {
		t.Errorf("corrections %v, want parse (two skills) over paste (one)", c)
	}
}

// A misspelt prompt routes where the prompt typed right does, with its
// corrections in the result; with correction off it finds nothing.
func TestTypoRoutesLikeClean(t *testing.T) {
	ix := NewIndex(typoDocs(), DefaultConfig())
	for _, tc := range []struct{ clean, typo string }{
		{"deployment to kubernetes", "deploymnet to kuberntes"},
		{"docker image cache", "dokcer imgae cache"},
		{"draft release notes", "draft relaese notes"},
	} {
		clean, typo := ix.Rank(tc.clean, Options{}), ix.Rank(tc.typo, Options{})
		if len(clean.Emitted) == 0 || !slices.Equal(clean.Emitted, typo.Emitted) {
			t.Errorf("%q emitted %v, %q %v", tc.clean, clean.Emitted, tc.typo, typo.Emitted)
		}
		if len(typo.Corrections) == 0 {
			t.Errorf("%q: no corrections in the result", tc.typo)
		}
		if typo.Ranked[0].Lexical != clean.Ranked[0].Lexical {
			t.Errorf("%q scores %v, the clean prompt %v: a correction counts as the word", tc.typo, typo.Ranked[0].Lexical, clean.Ranked[0].Lexical)
		}
	}
	cfg := DefaultConfig()
	cfg.Typos.MinLen = 0
	if r := NewIndex(typoDocs(), cfg).Rank("dokcer imgae", Options{}); r.K != 0 || len(r.Corrections) != 0 {
		t.Errorf("correction off: emitted %v, corrections %v", r.Emitted, r.Corrections)
	}
	cfg = DefaultConfig()
	cfg.Typos.Weight = 0.5
	half := NewIndex(typoDocs(), cfg).Rank("dokcer image", Options{NoDynamicK: true}).Ranked[0]
	full := ix.Rank("dokcer image", Options{NoDynamicK: true}).Ranked[0]
	if half.ID != full.ID || half.Lexical >= full.Lexical {
		t.Errorf("weight 0.5: %s at %v, weight 1: %s at %v", half.ID, half.Lexical, full.ID, full.Lexical)
	}
}

// A typo of a word the prompt also names counts once, as a repeated word.
func TestTypoRepeat(t *testing.T) {
	ix := NewIndex(typoDocs(), DefaultConfig())
	a, b := ix.Rank("docker image", Options{NoDynamicK: true}), ix.Rank("docker dokcer image", Options{NoDynamicK: true})
	if a.Ranked[0].Lexical != b.Ranked[0].Lexical {
		t.Errorf("lexical %v with the repeat, %v without", b.Ranked[0].Lexical, a.Ranked[0].Lexical)
	}
}

func TestPromptCorrected(t *testing.T) {
	ix := NewIndex(typoDocs(), DefaultConfig())
	p := ix.Read("Deploy to Kuberntes, then kuberntes again (dokcer)")
	if got, want := p.Corrected(), "Deploy to kubernetes, then kubernetes again (docker)"; got != want {
		t.Errorf("Corrected = %q, want %q", got, want)
	}
	if p := ix.Read("no typo here"); p.Corrected() != "no typo here" {
		t.Errorf("Corrected = %q", p.Corrected())
	}
}

// The typo vocabulary survives a snapshot, and a snapshot taken with
// another MinLen does not restore.
func TestTypoSnapshot(t *testing.T) {
	cfg := DefaultConfig()
	ix := NewIndex(typoDocs(), cfg)
	b, err := ix.Snapshot().AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeSnapshot(b)
	if err != nil {
		t.Fatal(err)
	}
	re, err := NewIndexFromSnapshot(typoDocs(), cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	if c := re.Read("dokcer").Corrections; len(c) != 1 || c[0].To != "docker" {
		t.Errorf("restored: %v", c)
	}
	cfg.Typos.MinLen = 6
	if _, err := NewIndexFromSnapshot(typoDocs(), cfg, s); err == nil {
		t.Error("a snapshot of another MinLen restored")
	}
}

// typoBenchDocs makes n skills of letter-only words, so prompts can
// misspell them.
func typoBenchDocs(n int) ([]Doc, []string) {
	rng := rand.New(rand.NewPCG(5, 6))
	words := make([]string, 3000)
	for i := range words {
		b := make([]byte, 5+rng.IntN(6))
		for j := range b {
			b[j] = byte('a' + rng.IntN(26))
		}
		words[i] = string(b)
	}
	pick := func(k int) string {
		out := make([]string, k)
		for i := range out {
			out[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(out, " ")
	}
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprintf("skill-%05d", i), Description: pick(25),
			Headings: []string{pick(3), pick(3)}, Triggers: []string{pick(10)}, Weight: 1}
	}
	return docs, words
}

// BenchmarkRankTypos is what correction costs a prompt: "clean" names
// three catalog words and three words the catalog lacks (each tried for a
// correction), "typos" misspells the three catalog words too; "off" is the
// same index and prompt with correction turned off (no dictionary: every
// unknown word is tried, the worst case).
func BenchmarkRankTypos(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		docs, words := typoBenchDocs(n)
		swap := func(w string) string { return w[:1] + w[2:3] + w[1:2] + w[3:] }
		clean := strings.Join([]string{words[12], words[77], words[300], "quorvex", "plimbert", "zandrocal"}, " ")
		typos := strings.Join([]string{swap(words[12]), swap(words[77]), swap(words[300]), "quorvex", "plimbert", "zandrocal"}, " ")
		for _, mode := range []struct {
			name   string
			minLen int
		}{{"off", 0}, {"on", DefaultTypos().MinLen}} {
			cfg := DefaultConfig()
			cfg.Typos.MinLen = mode.minLen
			ix := NewIndex(docs, cfg)
			for _, q := range []struct{ name, text string }{{"clean", clean}, {"typos", typos}} {
				b.Run(fmt.Sprintf("%d/%s/%s", n, q.name, mode.name), func(b *testing.B) {
					for b.Loop() {
						ix.Rank(q.text, Options{})
					}
				})
			}
		}
	}
}

// BenchmarkReadTypos is the reading of a prompt alone (tokenising, and
// with correction on trying each unknown word): a misspelt catalog word,
// a catalog word and three words the catalog lacks, among 10,000 skills.
func BenchmarkReadTypos(b *testing.B) {
	docs, words := typoBenchDocs(10000)
	q := strings.Join([]string{words[12][:1] + words[12][2:], words[77], "quorvex", "plimbert", "zandrocal"}, " ")
	for _, minLen := range []int{0, DefaultTypos().MinLen} {
		cfg := DefaultConfig()
		cfg.Typos.MinLen = minLen
		ix := NewIndex(docs, cfg)
		name := map[bool]string{false: "off", true: "on"}[minLen > 0]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				ix.Read(q)
			}
		})
	}
}
