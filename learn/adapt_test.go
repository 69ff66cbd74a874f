package learn

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/models"
)

func adaptSkill(id, desc string) AdaptSkill {
	name := strings.ReplaceAll(id, "-", " ")
	return AdaptSkill{ID: id, Full: name + ": " + desc, Name: name}
}

// synthSkills are five skills whose descriptions never mention the made-up
// words their helpful contexts use.
var synthSkills = []AdaptSkill{
	adaptSkill("webhook-signer", "Validate HMAC signatures of incoming webhooks."),
	adaptSkill("sql-migrations", "Write and review PostgreSQL schema migrations."),
	adaptSkill("docker-slim", "Shrink Docker images with multi-stage builds."),
	adaptSkill("git-bisect", "Find the commit that introduced a regression."),
	adaptSkill("react-testing", "Write React component tests with Jest."),
}

// synthWords are each skill's private vocabulary (split into pieces by
// WordPiece, unseen by the base model's training).
var synthWords = map[string][2]string{
	"webhook-signer": {"zorblax", "flimmer"},
	"sql-migrations": {"quendrix", "vopple"},
	"docker-slim":    {"brantoo", "skeevil"},
	"git-bisect":     {"mordaxe", "plinth"},
	"react-testing":  {"yuxtrap", "glommet"},
}

var synthTemplates = []string{
	"the %s keeps breaking the %s",
	"my %s %s fails again",
	"how do i fix the %s in %s",
	"%s returns an error after the %s update",
	"why is the %s slower than the %s",
	"set up %s with a new %s",
}

func synthVerdicts() []AdaptVerdict {
	var vs []AdaptVerdict
	for _, s := range synthSkills {
		w := synthWords[s.ID]
		for _, t := range synthTemplates {
			ctx := strings.Replace(strings.Replace(t, "%s", w[0], 1), "%s", w[1], 1)
			vs = append(vs, AdaptVerdict{Skill: s.ID, Context: ctx, Helpful: true})
		}
	}
	return vs
}

// randomBase is a small static model that knows nothing: N(0, 0.1) rows.
func randomBase(t *testing.T, dim int, seed uint64) *models.StaticModel {
	t.Helper()
	tok, err := models.DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	table := make([]float32, tok.VocabSize()*dim)
	for i := range table {
		table[i] = float32(r.NormFloat64() * 0.1)
	}
	m, err := models.NewStatic("synthetic-base", dim, table)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBuildAdaptData(t *testing.T) {
	skills := []AdaptSkill{adaptSkill("b-skill", "two"), adaptSkill("a-skill", "one")}
	vs := []AdaptVerdict{
		{Skill: "a-skill", Context: "first  context", Helpful: true},
		{Skill: "a-skill", Context: "First context", Helpful: true}, // duplicate (case, spaces)
		{Skill: "a-skill", Context: "second context", Helpful: true},
		{Skill: "a-skill", Context: "third context", Helpful: true},
		{Skill: "a-skill", Context: "bad context", Helpful: false},
		{Skill: "a-skill", Context: "both ways", Helpful: true},
		{Skill: "a-skill", Context: "Both  ways", Helpful: false}, // contradictory: dropped on both sides
		{Skill: "b-skill", Context: "only one", Helpful: true},
		{Skill: "b-skill", Context: "   ", Helpful: true}, // no context
		{Skill: "gone", Context: "deleted skill", Helpful: true},
	}
	d := BuildAdaptData(skills, vs, 0.2)
	if d.Skills[0].ID != "a-skill" {
		t.Fatalf("skills not sorted by id: %v", d.Skills)
	}
	if d.Contradictory != 1 || d.UnknownSkill != 1 || d.DuplicateContexts != 1 {
		t.Errorf("contradictory %d unknown %d duplicates %d, want 1 1 1", d.Contradictory, d.UnknownSkill, d.DuplicateContexts)
	}
	if d.Helpful() != 4 || len(d.Harmful) != 1 || d.Harmful[0].Context != "bad context" {
		t.Errorf("helpful %d harmful %v", d.Helpful(), d.Harmful)
	}
	// a-skill has 3 helpful: at least one held, at least one trained;
	// b-skill's only context always trains.
	heldA := 0
	for _, h := range d.Held {
		if h.Skill != 0 {
			t.Errorf("held back the only context of b-skill: %v", h)
		}
		heldA++
	}
	if heldA < 1 || heldA > 2 {
		t.Errorf("a-skill held %d of 3", heldA)
	}
	if d.SkillsWithEvidence != 2 || d.SkillsWithHeldBacks != 1 {
		t.Errorf("skills with evidence %d, with held-backs %d", d.SkillsWithEvidence, d.SkillsWithHeldBacks)
	}
	// Deterministic, and independent of the verdicts' order for the split.
	again := BuildAdaptData(skills, vs, 0.2)
	if len(again.Held) != len(d.Held) || again.Held[0] != d.Held[0] {
		t.Errorf("split not deterministic: %v vs %v", again.Held, d.Held)
	}
}

func TestSplitContexts(t *testing.T) {
	many := make([]string, 200)
	for i := range many {
		many[i] = "context number " + strings.Repeat("x", i)
	}
	for _, tc := range []struct {
		name          string
		texts         []string
		holdout       float64
		minHeld, maxH int
	}{
		{"single trains", []string{"a"}, 0.9, 0, 0},
		{"two: one held", []string{"a", "b"}, 0.01, 1, 1},
		{"two: never all", []string{"a", "b"}, 0.99, 1, 1},
		{"no holdout", []string{"a", "b", "c"}, 0, 0, 0},
		{"about 20 percent", many, 0.2, 25, 55},
	} {
		t.Run(tc.name, func(t *testing.T) {
			train, held := splitContexts("skill", tc.texts, tc.holdout)
			if len(train)+len(held) != len(tc.texts) {
				t.Fatalf("lost contexts: %d + %d != %d", len(train), len(held), len(tc.texts))
			}
			if len(held) < tc.minHeld || len(held) > tc.maxH {
				t.Errorf("held %d, want %d..%d", len(held), tc.minHeld, tc.maxH)
			}
		})
	}
}

func TestDecideAdapt(t *testing.T) {
	m := func(mrr, r1, harm float64) AdaptMetrics { return AdaptMetrics{MRR: mrr, R1: r1, HarmfulTop1: harm} }
	for _, tc := range []struct {
		name          string
		before, after AdaptMetrics
		keep          bool
	}{
		{"mrr up", m(0.5, 0.3, 0.2), m(0.6, 0.3, 0.2), true},
		{"mrr up, harmful down", m(0.5, 0.3, 0.2), m(0.6, 0.4, 0.1), true},
		{"mrr up but harmful up", m(0.5, 0.3, 0.2), m(0.9, 0.9, 0.25), false},
		{"mrr equal, r1 up", m(0.5, 0.3, 0), m(0.5, 0.4, 0), true},
		{"mrr equal, r1 equal", m(0.5, 0.3, 0), m(0.5, 0.3, 0), false},
		{"mrr down, r1 up", m(0.5, 0.3, 0), m(0.45, 0.4, 0), false},
		{"no harmful data either side", m(0.5, 0.3, 0), m(0.7, 0.5, 0), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keep, why := DecideAdapt(tc.before, tc.after)
			if keep != tc.keep || why == "" {
				t.Errorf("keep = %v (%s), want %v", keep, why, tc.keep)
			}
		})
	}
}

func TestEvaluateAdapt(t *testing.T) {
	// A model that puts every context on its own skill's tokens: the skill
	// texts share words with their contexts.
	m := randomBase(t, 32, 3)
	skills := []AdaptSkill{adaptSkill("alpha", "kubernetes pods"), adaptSkill("beta", "postgres vacuum"), adaptSkill("gamma", "terraform state")}
	d := AdaptData{
		Skills:  skills,
		Held:    []AdaptExample{{0, "kubernetes pods alpha"}, {1, "postgres vacuum beta"}, {2, "terraform state gamma"}},
		Harmful: []AdaptExample{{0, "postgres vacuum beta"}},
	}
	got, err := EvaluateAdapt(m, d)
	if err != nil {
		t.Fatal(err)
	}
	if got.Held != 3 || got.R1 != 1 || got.R5 != 1 || got.MRR != 1 || got.Harmful != 1 || got.HarmfulTop1 != 0 {
		t.Errorf("metrics = %+v, want perfect held-backs and no harmful top-1", got)
	}
	// A zero model ties everything: ties count against it.
	tok, _ := models.DefaultTokenizer()
	zero, err := models.NewStatic("zero", 4, make([]float32, tok.VocabSize()*4))
	if err != nil {
		t.Fatal(err)
	}
	got, err = EvaluateAdapt(zero, d)
	if err != nil {
		t.Fatal(err)
	}
	if got.R1 != 0 || got.MRR != 1.0/3 || got.HarmfulTop1 != 0 {
		t.Errorf("zero model metrics = %+v, want R@1 0, MRR 1/3", got)
	}
}

// TestAdaptLearnsUnseenVocabulary: helpful contexts use words the base
// model never saw; held-back contexts reuse them, and adapt must learn them.
func TestAdaptLearnsUnseenVocabulary(t *testing.T) {
	base := randomBase(t, 32, 1)
	d := BuildAdaptData(synthSkills, synthVerdicts(), 0.2)
	if len(d.Held) < len(synthSkills) || len(d.Train) < 2*len(synthSkills) {
		t.Fatalf("split: %d trained, %d held", len(d.Train), len(d.Held))
	}
	res, err := Adapt(context.Background(), base, d, DefaultAdaptConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("pairs %d held %d: before R@1 %.3f R@5 %.3f MRR %.3f; after R@1 %.3f R@5 %.3f MRR %.3f (%s)",
		res.Pairs, res.Before.Held, res.Before.R1, res.Before.R5, res.Before.MRR, res.After.R1, res.After.R5, res.After.MRR, res.Why)
	if !(res.After.MRR > res.Before.MRR) || !res.Keep {
		t.Fatalf("adapt did not help: before %+v after %+v keep %v (%s)", res.Before, res.After, res.Keep, res.Why)
	}
	if res.After.MRR < 0.9 {
		t.Errorf("after MRR %.3f, want at least 0.9 on vocabulary this clear", res.After.MRR)
	}
	// The adapted table loads as a model with the same answers.
	id := AdaptedID(base.ID(), time.Date(2026, 5, 22, 0, 0, 0, 0, time.UTC), res.Table)
	if !strings.HasPrefix(id, "synthetic-base-adapted-20260522-") || AdaptedID(id, time.Now(), res.Table)[:len("synthetic-base-adapted-")] != "synthetic-base-adapted-" {
		t.Errorf("adapted id %q", id)
	}
	dir := t.TempDir()
	if err := models.SaveStatic(dir, id, res.Dim, res.Table, true, map[string]any{"base": base.ID()}); err != nil {
		t.Fatal(err)
	}
	loaded, err := models.LoadStatic(os.DirFS(dir), ".")
	if err != nil {
		t.Fatal(err)
	}
	again, err := EvaluateAdapt(loaded, d)
	if err != nil {
		t.Fatal(err)
	}
	if again != res.After {
		t.Errorf("saved model evaluates %+v, adapt reported %+v", again, res.After)
	}
}

// TestAdaptKeepsOldWhenDataCannotHelp: evidence that points the held-back
// contexts' words at another skill, and a base that is already perfect.
func TestAdaptKeepsOldWhenDataCannotHelp(t *testing.T) {
	base := randomBase(t, 32, 2)
	t.Run("misleading", func(t *testing.T) {
		var d AdaptData
		d.Skills = synthSkills
		for i := range synthSkills {
			w := synthWords[synthSkills[i].ID]
			for _, tpl := range synthTemplates[:4] {
				ctx := strings.Replace(strings.Replace(tpl, "%s", w[0], 1), "%s", w[1], 1)
				d.Train = append(d.Train, AdaptExample{Skill: i, Context: ctx})
			}
			// Held back: the same words next to the next skill's name, and
			// credited to that skill (which the base finds by its name).
			next := (i + 1) % len(synthSkills)
			ctx := w[0] + " " + w[1] + " " + synthSkills[next].Name
			d.Held = append(d.Held, AdaptExample{Skill: next, Context: ctx})
		}
		res, err := Adapt(context.Background(), base, d, DefaultAdaptConfig(), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("before %+v after %+v (%s)", res.Before, res.After, res.Why)
		if res.Keep {
			t.Fatalf("kept a model trained on misleading evidence: before %+v after %+v", res.Before, res.After)
		}
	})
	t.Run("already perfect", func(t *testing.T) {
		var d AdaptData
		d.Skills = synthSkills
		for i, s := range synthSkills {
			for k := range 3 {
				ex := AdaptExample{Skill: i, Context: s.Full + strings.Repeat(" again", k)}
				if k == 0 {
					d.Held = append(d.Held, ex)
				} else {
					d.Train = append(d.Train, ex)
				}
			}
		}
		res, err := Adapt(context.Background(), base, d, DefaultAdaptConfig(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Before.MRR != 1 || res.Keep {
			t.Fatalf("before %+v after %+v keep %v: a perfect base must be kept", res.Before, res.After, res.Keep)
		}
	})
}

func TestAdaptRefusesTooLittleEvidence(t *testing.T) {
	base := randomBase(t, 8, 4)
	few := BuildAdaptData(synthSkills, synthVerdicts()[:4], 0.2)
	if _, err := Adapt(context.Background(), base, few, DefaultAdaptConfig(), nil); !errors.Is(err, ErrTooLittleEvidence) {
		t.Errorf("4 contexts: err = %v, want ErrTooLittleEvidence", err)
	}
	var single []AdaptVerdict // one context per skill: nothing can be held back
	for _, s := range synthSkills {
		single = append(single, AdaptVerdict{Skill: s.ID, Context: "only " + s.ID, Helpful: true})
	}
	none := BuildAdaptData(synthSkills, single, 0.2)
	if _, err := Adapt(context.Background(), base, none, DefaultAdaptConfig(), nil); !errors.Is(err, ErrTooLittleEvidence) || len(none.Held) != 0 {
		t.Errorf("no held-back: err = %v, held %d", err, len(none.Held))
	}
}

func TestAdaptPairs(t *testing.T) {
	tok, err := models.DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	skills := []AdaptSkill{adaptSkill("alpha", "kubernetes pods"), adaptSkill("beta", "postgres vacuum")}
	d := AdaptData{
		Skills:  skills,
		Train:   []AdaptExample{{0, "pods crash"}, {1, "vacuum is slow"}, {1, "   "}},
		Harmful: []AdaptExample{{1, "pods crash loop"}, {1, "vacuum pods"}, {0, ""}},
	}
	pairs := AdaptPairs(tok, d)
	if len(pairs) != 2 {
		t.Fatalf("%d pairs, want 2 (a context without tokens is dropped)", len(pairs))
	}
	if !equalIDs(pairs[0].A, tok.IDs("alpha: kubernetes pods")) || !equalIDs(pairs[0].B, tok.IDs("pods crash")) || len(pairs[0].Neg) != 0 {
		t.Errorf("pair 0 = %+v", pairs[0])
	}
	if !equalIDs(pairs[1].A, tok.IDs("beta: postgres vacuum")) || len(pairs[1].Neg) != 2 || !equalIDs(pairs[1].Neg[1], tok.IDs("vacuum pods")) {
		t.Errorf("pair 1 = %+v, want beta's two harmful contexts as negatives", pairs[1])
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
