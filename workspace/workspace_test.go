package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/hook/inject"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/registry/registrytest"
	"github.com/megagit/megagit/route/index"
)

// lexical makes a registry with the named skills that routes without a model.
func lexical(t *testing.T, skills ...string) string {
	t.Helper()
	r := registrytest.New(t, skills...)
	if err := os.WriteFile(ConfigFile(r.Root()), []byte("roots: [skills]\nmodel:\n  id: none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return r.Root()
}

func TestOpenOutsideARegistry(t *testing.T) {
	if _, err := Open(t.TempDir(), nil, func(string) {}); !errors.Is(err, local.ErrNotRegistry) {
		t.Fatalf("Open outside a registry: %v, want ErrNotRegistry", err)
	}
	if _, err := OpenHook(t.TempDir()); !errors.Is(err, local.ErrNotRegistry) {
		t.Fatalf("OpenHook outside a registry: %v, want ErrNotRegistry", err)
	}
}

func TestOpenReadsConfigAndSkills(t *testing.T) {
	root := lexical(t, "alpha", "beta")
	w, err := Open(root, nil, func(s string) { t.Errorf("warning: %s", s) })
	if err != nil {
		t.Fatal(err)
	}
	if w.Cfg.Model.ID != "none" || len(w.Cfg.Roots) != 1 || w.Cfg.Roots[0] != "skills" {
		t.Fatalf("config = model %q roots %v", w.Cfg.Model.ID, w.Cfg.Roots)
	}
	docs, problems, err := w.Docs()
	if err != nil || len(problems) != 0 || len(docs) != 2 || docs[0].ID != "alpha" || docs[1].ID != "beta" {
		t.Fatalf("Docs = %d docs, problems %v, err %v", len(docs), problems, err)
	}
}

// A broken config fails Open; OpenHook still opens the registry so the
// hook can log the error there.
func TestOpenHookKeepsRegistryOnBrokenConfig(t *testing.T) {
	root := lexical(t)
	if err := os.WriteFile(ConfigFile(root), []byte("route: [not a map\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if w, err := Open(root, nil, func(string) {}); err == nil || w != nil {
		t.Fatalf("Open with a broken config = %v, %v", w, err)
	}
	w, err := OpenHook(root)
	if err == nil || w == nil || w.Reg == nil || w.Cfg != nil {
		t.Fatalf("OpenHook with a broken config = %+v, %v", w, err)
	}
}

// A bad setting fails Open; OpenHook sets it aside, the team registry's
// config's too, and notes each once for the hook log.
func TestOpenHookSetsBadSettingsAside(t *testing.T) {
	team := registrytest.New(t, "team-only")
	teamFile := ConfigFile(team.Root())
	if err := os.WriteFile(teamFile, []byte("roots: [skills]\nlock:\n  timeout_ms: soon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := lexical(t, "alpha")
	t.Setenv(config.TeamRegistryEnv, team.Root())
	t.Setenv("MEGA_EVAL_COUNT_W", "abc")
	if _, err := Open(root, nil, func(string) {}); !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "MEGA_EVAL_COUNT_W") {
		t.Fatalf("Open with a bad variable: %v", err)
	}
	w, err := OpenHook(root)
	if err != nil || w.Cfg == nil || w.Cfg.Blend.CountW != 0.1 || w.Cfg.Model.ID != "none" {
		t.Fatalf("OpenHook with a bad variable = %+v, %v", w, err)
	}
	s := w.PromptEnv().Settings
	c, err := w.Catalog()
	if err != nil || c.Lookup("team-only") == nil {
		t.Fatalf("the team registry was not read: %v, problems %v", err, c.Problems)
	}
	want := []string{
		`config: field blend.count_w (from env MEGA_EVAL_COUNT_W): "abc" is not a number; using the default, 0.1`,
		`team registry: config: field lock.timeout_ms (from file ` + teamFile + `): "soon" is not a whole number of milliseconds; using the default, 30000`,
	}
	if !slices.Equal(s.Notes, want) {
		t.Errorf("notes\n%s\nwant\n%s", strings.Join(s.Notes, "\n"), strings.Join(want, "\n"))
	}
}

func TestRankerConfigKeepsDefaultsForZero(t *testing.T) {
	cfg := &config.Config{}
	def := ranker.DefaultConfig()
	if got := RankerConfig(cfg); got.K1 != def.K1 || got.Fields.Name.Weight != def.Fields.Name.Weight {
		t.Fatalf("zero lexical settings changed the defaults: K1 %v name %v", got.K1, got.Fields.Name.Weight)
	}
	cfg.Lexical.K1, cfg.Lexical.WName, cfg.Route.MMR = 1.7, 4, 0.5
	got := RankerConfig(cfg)
	if got.K1 != 1.7 || got.Fields.Name.Weight != 4 || got.MMR.Lambda != 0.5 {
		t.Fatalf("RankerConfig = K1 %v name %v mmr %v", got.K1, got.Fields.Name.Weight, got.MMR.Lambda)
	}
	// The body is in by default; a weight below 0 leaves it out.
	if def.Fields.Body.Weight <= 0 || got.Fields.Body != def.Fields.Body {
		t.Errorf("default body field %+v", got.Fields.Body)
	}
	cfg.Lexical.WBody = 0.5
	if got := RankerConfig(cfg).Fields.Body.Weight; got != 0.5 {
		t.Errorf("w_body 0.5: body weight %v", got)
	}
	cfg.Lexical.WBody = -1
	if got := RankerConfig(cfg).Fields.Body.Weight; got != 0 {
		t.Errorf("w_body -1: body weight %v, want 0 (off)", got)
	}
}

// Only explicit verdicts with a reason, and no action, become related reasons.
func TestSkillDocsRelatedReasons(t *testing.T) {
	r := registrytest.New(t, "alpha")
	skills, _, err := r.Skills()
	if err != nil {
		t.Fatal(err)
	}
	ledgers := map[string][]ledger.Entry{"alpha": {
		{Verdict: "HELPFUL", Source: ledger.SourceExplicit, Reason: "good"},
		{Verdict: "HARMFUL", Source: ledger.SourceExplicit, Reason: "bad"},
		{Verdict: "HELPFUL", Source: "implicit", Reason: "inferred"},
		{Verdict: "HELPFUL", Source: ledger.SourceExplicit},
		{Action: "unarchive", Source: ledger.SourceExplicit, Reason: "back"},
	}}
	docs := SkillDocs(skills, ledgers)
	want := []ranker.Reason{{Text: "good", Helpful: true}, {Text: "bad"}}
	if len(docs) != 1 || docs[0].ID != "alpha" || docs[0].Description != "The alpha skill." || len(docs[0].Related) != len(want) {
		t.Fatalf("SkillDocs = %+v", docs)
	}
	for i, rr := range want {
		if docs[0].Related[i] != rr {
			t.Errorf("related[%d] = %+v, want %+v", i, docs[0].Related[i], rr)
		}
	}
}

func TestServeKeyFollowsRankingSettingsOnly(t *testing.T) {
	a := &config.Config{Roots: []string{"skills"}}
	b := *a
	b.Route.TopK = 9 // travels with each request
	if ServeKey(a) != ServeKey(&b) {
		t.Error("an output setting changed the serve key")
	}
	b.Route.MMR = 0.3
	if ServeKey(a) == ServeKey(&b) {
		t.Error("a ranking setting left the serve key unchanged")
	}
}

func TestRouterWithoutModelIsLexical(t *testing.T) {
	w, err := Open(lexical(t, "alpha"), nil, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	rt, err := w.Router(func(p []error) {
		if len(p) != 0 {
			t.Errorf("problems: %v", p)
		}
	}, func(s string) { said = append(said, s) }, true)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Sem != nil || SemanticOf(rt) != nil || len(said) != 0 {
		t.Fatalf("lexical router: Sem %v, said %q", rt.Sem, said)
	}
}

func TestHookSettingsModel(t *testing.T) {
	for _, tt := range []struct {
		id, dir string
		want    string
	}{
		{"", "", inject.ModelNone},
		{"none", "", inject.ModelNone},
		{"lexical", "", inject.ModelNone},
		{"megagit-static-v3", "", inject.ModelBuiltin},
		{"megagit-static-v1", "", inject.ModelBuiltin}, // retired: the built-in model routes instead
		{"none", "/some/model", inject.ModelNone},      // a folder that does not load: lexical
		{"unknown-model", "", inject.ModelNone},
	} {
		cfg := &config.Config{Model: config.Model{ID: tt.id, Dir: tt.dir}}
		s, _ := hookSettings(cfg, t.TempDir())
		if s.Model != tt.want {
			t.Errorf("model id %q dir %q: %v, want %v", tt.id, tt.dir, s.Model, tt.want)
		}
		if s.Model == inject.ModelBuiltin && s.ModelID != "megagit-static-v3" {
			t.Errorf("model id %q: the hook routes with %q, want the built-in megagit-static-v3", tt.id, s.ModelID)
		}
		if s.ServeKey != ServeKey(cfg) {
			t.Errorf("model id %q: serve key differs from ServeKey", tt.id)
		}
	}
}

// Router reads the compiled index once it is up to date, yet a skill that
// does not parse is reported on every call, and an edited skill is seen.
func TestRouterReusesTheCompiledIndex(t *testing.T) {
	root := lexical(t, "alpha", "beta")
	broken := filepath.Join(root, "skills", "broken", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(broken), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte("---\nname: [broken\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	routeOnce := func() ([]string, []string) {
		t.Helper()
		w, err := Open(root, nil, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		var problems []string
		rt, err := w.Router(func(p []error) {
			for _, e := range p {
				problems = append(problems, e.Error())
			}
		}, func(string) {}, true)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range rt.Docs {
			ids = append(ids, d.ID)
		}
		return ids, problems
	}
	// The prompt hook builds the index first: route, reading it, still warns.
	w, err := Open(root, nil, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	e := w.PromptEnv()
	if _, err := e.Refresh(); err != nil {
		t.Fatal(err)
	}
	first, p1 := routeOnce()
	if _, err := os.Stat(filepath.Join(root, ".megagit", "local", index.IndexFile)); err != nil {
		t.Fatalf("no compiled index after routing: %v", err)
	}
	second, p2 := routeOnce()
	if !slices.Equal(first, []string{"alpha", "beta"}) || !slices.Equal(first, second) {
		t.Fatalf("skills routed: %v then %v, want alpha and beta both times", first, second)
	}
	if len(p1) != 1 || !strings.Contains(p1[0], "broken") || !slices.Equal(p1, p2) {
		t.Fatalf("problems: %q then %q, want the broken skill both times", p1, p2)
	}

	alpha := filepath.Join(root, "skills", "alpha", "SKILL.md")
	data, err := os.ReadFile(alpha)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "The alpha skill.", "Kubernetes pod restarts.", 1)
	if edited == string(data) {
		t.Fatalf("fixture changed: %s", data)
	}
	if err := os.WriteFile(alpha, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err = Open(root, nil, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := w.Router(func([]error) {}, func(string) {}, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := rt.Docs[0].Description; got != "Kubernetes pod restarts." {
		t.Fatalf("after an edit the router reads description %q", got)
	}
}

// A refresh after some skills changed re-reads only those, keeps the
// vectors of the texts that did not change, and gives exactly what a full
// read and embedding give: edits in place, a ledger written, a skill that
// no longer parses, a skill added and one removed.
func TestIncrementalRefreshEqualsAFullBuild(t *testing.T) {
	r := registrytest.New(t, "alpha", "beta", "gamma", "delta")
	root := r.Root()
	if err := os.WriteFile(ConfigFile(root), []byte("roots: [skills]\n"), 0o644); err != nil { // the built-in model
		t.Fatal(err)
	}
	open := func() *Workspace {
		t.Helper()
		w, err := Open(root, nil, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	compiled := func() (index.Compiled, []string) {
		t.Helper()
		c, sem, bad, err := open().Compiled(func(string) {}, true)
		if err != nil {
			t.Fatal(err)
		}
		if sem == nil {
			t.Fatal("no semantic channel with the built-in model")
		}
		var problems []string
		for _, p := range bad {
			problems = append(problems, p.Error())
		}
		return c, problems
	}
	// full is what a build from nothing gives.
	full := func() (index.Compiled, []string) {
		t.Helper()
		if err := os.Remove(filepath.Join(root, ".megagit", "local", index.IndexFile)); err != nil {
			t.Fatal(err)
		}
		return compiled()
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, "skills", name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	same := func(step string) {
		t.Helper()
		got, gotBad := compiled()
		again, againBad := compiled() // read back, no change
		want, wantBad := full()
		// A read that rebuilds nothing leaves the body terms kept for the
		// next rebuild undecoded; a rebuild's are a full build's.
		again.Docs = withoutBodyTerms(again.Docs)
		for _, c := range []index.Compiled{got, again} {
			wantDocs := want.Docs
			if c.Docs[0].BodyTerms == nil {
				wantDocs = withoutBodyTerms(wantDocs)
			}
			if !reflect.DeepEqual(c.Docs, wantDocs) || !reflect.DeepEqual(c.Vectors, want.Vectors) || c.Key != want.Key {
				t.Fatalf("%s: the refreshed index differs from a full build:\n got %+v\nwant %+v", step, c.Docs, wantDocs)
			}
		}
		if !slices.Equal(gotBad, wantBad) || !slices.Equal(againBad, wantBad) {
			t.Fatalf("%s: problems %q then %q, a full build finds %q", step, gotBad, againBad, wantBad)
		}
	}
	same("first build")
	write("beta", "---\nname: beta\ndescription: Rotate TLS certificates before they expire.\n---\n\n# Steps\n")
	same("a description edited in place")
	ledger := filepath.Join(root, ".megagit", "ledger", "gamma.jsonl")
	if err := os.MkdirAll(filepath.Dir(ledger), 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"id":"01J0000000000000000000000A","ts":"2026-11-24T10:00:00Z","skill":"gamma","verdict":"HELPFUL","reason":"rotated the cert","source":"explicit"}` + "\n"
	if err := os.WriteFile(ledger, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	same("a ledger written")
	write("delta", "---\nname: [broken\n---\n")
	same("a skill that no longer parses")
	write("delta", "---\nname: delta\ndescription: Plan postgres migrations.\n---\n")
	same("the broken skill fixed")
	write("epsilon", "---\nname: epsilon\ndescription: Shrink docker images.\n---\n")
	same("a skill added")
	if err := os.RemoveAll(filepath.Join(root, "skills", "alpha")); err != nil {
		t.Fatal(err)
	}
	same("a skill removed")
}

func withoutBodyTerms(docs []ranker.Doc) []ranker.Doc {
	out := slices.Clone(docs)
	for i := range out {
		out[i].BodyTerms = nil
	}
	return out
}
