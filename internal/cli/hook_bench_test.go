package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/workspace"
)

// TestGenBenchRegistry writes a synthetic registry for the benchmarks that
// read MEGAGIT_BENCH_REGISTRY (lab/NOTEBOOK.md, "Hook latency", has their
// history); it writes only when asked:
//
//	MEGAGIT_GEN_REGISTRY=/tmp/reg1000 MEGAGIT_GEN_SKILLS=1000 go test ./internal/cli -run TestGenBenchRegistry
//	git -C /tmp/reg1000 init && git -C /tmp/reg1000 add -A && git -C /tmp/reg1000 commit -m skills
//
// megagit opens a registry only inside a git repository. The lab's
// benchreg tool builds registries of real package descriptions instead.
func TestGenBenchRegistry(t *testing.T) {
	dir := os.Getenv("MEGAGIT_GEN_REGISTRY")
	if dir == "" {
		t.Skip("set MEGAGIT_GEN_REGISTRY and MEGAGIT_GEN_SKILLS")
	}
	n, err := strconv.Atoi(os.Getenv("MEGAGIT_GEN_SKILLS"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".megagit"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSyntheticSkills(t, dir, n, "skill-%05d")
}

// writeSyntheticSkills writes n skills (skills/<nameFormat of i>/SKILL.md) drawn
// from a 90-word software vocabulary with a fixed seed: each a 25-word
// description, a 6-word "Use when" trigger, a heading, a step and a gotcha,
// so a prompt matches many skills (a worst case for ranking).
func writeSyntheticSkills(t testing.TB, dir string, n int, nameFormat string) {
	t.Helper()
	words := strings.Fields(`docker image build cache layer test flaky ci pipeline deploy kubernetes pod
		service webhook signature stripe github postgres migration index table query react component
		render state hook python package wheel release notes changelog git commit branch rebase merge
		terraform module provider aws lambda queue kafka topic consumer redis memory leak profile cpu
		latency http client retry timeout tls certificate dns nginx proxy log metric alert grafana`)
	rng := rand.New(rand.NewSource(1))
	pick := func(k int) string {
		out := make([]string, k)
		for i := range out {
			out[i] = words[rng.Intn(len(words))]
		}
		return strings.Join(out, " ")
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf(nameFormat, i)
		body := fmt.Sprintf("---\nname: %s\ndescription: \"%s. Use when %s.\"\n---\n\n# %s\n\n## Steps\n1. %s\n\n## Gotchas\n- %s\n",
			name, pick(25), pick(6), pick(3), pick(20), pick(12))
		p := filepath.Join(dir, "skills", name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkHookRouter times what the prompt hook does before ranking: load
// the registry's skills (or the local compiled index) and build the index.
// It and the two below read the registry MEGAGIT_BENCH_REGISTRY names, e.g.
// one of 1,000 skills written by TestGenBenchRegistry:
//
//	MEGAGIT_BENCH_REGISTRY=/tmp/reg1000 go test ./internal/cli -run x -bench HookRouter
func BenchmarkHookRouter(b *testing.B) {
	dir := os.Getenv("MEGAGIT_BENCH_REGISTRY")
	if dir == "" {
		b.Skip("set MEGAGIT_BENCH_REGISTRY")
	}
	e, err := workspace.OpenHook(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("skills", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := e.Reg.Skills(); err != nil {
				b.Fatal(err)
			}
		}
	})
	skills, _, _ := e.Reg.Skills()
	led, _ := e.Reg.Ledgers()
	docs := workspace.SkillDocs(skills, led)
	b.Run("index", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			workspace.NewRouter(docs, e.Cfg, nil)
		}
	})
	b.Run("hookRouter", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := hookRouter(e); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHookPrompt times one whole prompt hook call in process (all but
// process start): open, compiled index, route twice, session and decision
// log. Profile it with -cpuprofile. The prompt is the description of the
// registry's first skill, so whatever the registry, the hook finds a skill
// and renders it (a fixed prompt may find nothing on a registry it was not
// written for, and an abstaining hook skips the rendering); each call is
// the first of its session, as the session file is removed between calls.
//
//	MEGAGIT_BENCH_REGISTRY=/tmp/reg1000 MEGAGIT_MODEL_ID=none go test ./internal/cli -run x -bench HookPrompt
func BenchmarkHookPrompt(b *testing.B) {
	dir := os.Getenv("MEGAGIT_BENCH_REGISTRY")
	if dir == "" {
		b.Skip("set MEGAGIT_BENCH_REGISTRY")
	}
	in, err := json.Marshal(map[string]string{"session_id": "bench", "cwd": dir, "prompt": firstDescription(b, dir)})
	if err != nil {
		b.Fatal(err)
	}
	session := filepath.Join(dir, ".megagit", "local", "sessions", "bench.json")
	var out, errOut strings.Builder
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := os.Remove(session); err != nil && !errors.Is(err, fs.ErrNotExist) {
			b.Fatal(err)
		}
		b.StartTimer()
		out.Reset()
		a := &app{dir: dir, in: bytes.NewReader(in), out: &out, errOut: &errOut, now: time.Now}
		hookPromptRun(&hookPromptOptions{app: a, agent: "claude"})
		if out.Len() == 0 {
			b.Fatalf("no output: %s", errOut.String())
		}
	}
}

// firstDescription is the description of the registry's first skill by
// name.
func firstDescription(b *testing.B, dir string) string {
	b.Helper()
	e, err := workspace.OpenHook(dir)
	if err != nil {
		b.Fatal(err)
	}
	skills, _, err := e.Reg.Skills()
	if err != nil || len(skills) == 0 {
		b.Fatalf("%s: %d skills, %v", dir, len(skills), err)
	}
	first := slices.MinFunc(skills, func(x, y *registry.Skill) int { return strings.Compare(x.Name, y.Name) })
	return first.File.Description()
}

// BenchmarkHookRoute times the ranking and rendering of one prompt with
// the compiled index loaded, as the prompt hook does it.
//
//	MEGAGIT_BENCH_REGISTRY=/tmp/reg1000 MEGAGIT_MODEL_ID=none go test ./internal/cli -run x -bench HookRoute
func BenchmarkHookRoute(b *testing.B) {
	dir := os.Getenv("MEGAGIT_BENCH_REGISTRY")
	if dir == "" {
		b.Skip("set MEGAGIT_BENCH_REGISTRY")
	}
	e, err := workspace.OpenHook(dir)
	if err != nil {
		b.Fatal(err)
	}
	rt, err := hookRouter(e)
	if err != nil {
		b.Fatal(err)
	}
	s := route.Settings{TopK: e.Cfg.Route.TopK, NoDynamic: !e.Cfg.Route.Dynamic, Format: e.Cfg.Route.Format, Budget: e.Cfg.Route.Budget}
	b.ReportAllocs()
	for b.Loop() {
		rt.Route("the docker image build is slow and the cache layer is huge", s)
	}
}
