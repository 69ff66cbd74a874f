package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/decisionlog"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/routetest"
	"github.com/megagit/megagit/route/serve"
	"github.com/megagit/megagit/workspace"
)

// serveTestRegistry writes a registry of n synthetic skills.
func serveTestRegistry(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	mustMegagit(t, procEnv(t), "-C", dir, "init")
	writeSyntheticSkills(t, dir, n, "s%03d")
	return dir
}

// startServe runs `megagit serve` in this process until the test ends.
func startServe(t testing.TB, dir string) *workspace.Workspace {
	t.Helper()
	log := &routetest.Log{}
	a := &app{dir: dir, out: &bytes.Buffer{}, errOut: log, now: time.Now}
	routetest.Start(t, func(ctx context.Context) error { return serveRun(ctx, &serveOptions{app: a}) })
	e, err := a.open(nil)
	if err != nil {
		t.Fatal(err)
	}
	routetest.WaitServed(t, serveClient(e), log)
	return e
}

// reopen loads a registry's configuration as a new client would.
func reopen(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	e, err := (&app{dir: dir, errOut: &bytes.Buffer{}}).open(nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// checkServedLikeLocal routes every prompt through the server and with the
// router megagit builds in this process (see routetest.CheckLikeLocal).
func checkServedLikeLocal(t *testing.T, e *workspace.Workspace) []route.Result {
	t.Helper()
	local, err := (&app{errOut: &bytes.Buffer{}}).router(e, true)
	if err != nil {
		t.Fatal(err)
	}
	return routetest.CheckLikeLocal(t, serveClient(e), local)
}

func TestServeFlags(t *testing.T) {
	testFlags(t, newServeCmd, func(o *serveOptions) { o.app = nil }, []flagCase[serveOptions]{
		{name: "none", args: nil, want: serveOptions{}},
		{name: "idle", args: []string{"--idle", "90s"}, want: serveOptions{idle: 90 * time.Second}},
		{name: "bad idle", args: []string{"--idle", "soon"}, wantErr: `invalid argument "soon" for "--idle"`},
		{name: "tiny idle", args: []string{"--idle", "1ns"}, want: serveOptions{idle: time.Nanosecond}},
		{name: "negative idle", args: []string{"--idle", "-5s"}, wantErr: "--idle -5s: want a positive duration, or 0 to never stop"},
		{name: "stop", args: []string{"--stop"}, want: serveOptions{stop: true}},
		{name: "stop and idle", args: []string{"--stop", "--idle", "1m"}, wantErr: "--stop takes no other flag"},
		{name: "lock fd", args: []string{"--idle", "30m", "--lock-fd", "3"}, want: serveOptions{idle: 30 * time.Minute, lockFD: 3}},
		{name: "lock fd of a standard stream", args: []string{"--lock-fd", "2"}, wantErr: "--lock-fd 2: want a descriptor from 3 up"},
		{name: "an argument", args: []string{"now"}, wantErr: "expects no arguments"},
		{name: "unknown flag", args: []string{"--socket", "x"}, wantErr: "unknown flag: --socket"},
	})
}

func TestServeRoutesLikeInProcess(t *testing.T) {
	dir := serveTestRegistry(t, 60)
	checkServedLikeLocal(t, startServe(t, dir))
}

func TestServeRoutesLikeInProcessWithONNX(t *testing.T) {
	ok, err := onnxAvailable()
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skip("needs ONNX support and ONNX Runtime (scripts/install-onnxruntime.sh)")
	}
	dir := serveTestRegistry(t, 30)
	tiny := t.TempDir()
	model, err := os.ReadFile(filepath.Join("..", "..", "models", "testdata", "tiny-bert", models.ONNXModelFile))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := models.DefaultTokenizerJSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{models.ONNXModelFile: model, models.TokenizerFile: tok} {
		if err := os.WriteFile(filepath.Join(tiny, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("MEGAGIT_ONNXRUNTIME_LIB", onnxRuntimeLib())
	env := append(procEnv(t), "MEGAGIT_ONNXRUNTIME_LIB="+onnxRuntimeLib())
	mustMegagit(t, env, "-C", dir, "model", "use", "--dir", tiny)
	mustMegagit(t, env, "-C", dir, "embed")
	dense := 0
	for _, rr := range checkServedLikeLocal(t, startServe(t, dir)) {
		for _, b := range rr.Res.Ranked {
			if b.Dense != nil {
				dense++
			}
		}
	}
	if dense == 0 {
		t.Error("the served rankings carry no dense score: the ONNX model was not used")
	}
}

func TestServeSeesEditsAndDeclinesOtherSettings(t *testing.T) {
	dir := serveTestRegistry(t, 20)
	e := startServe(t, dir)
	s := route.Settings{TopK: 3, Format: "catalog", Budget: 2000}
	const prompt = "zanzibar quokka export"
	if docs, rr, err := serveClient(e).Route(prompt, "", s, 5*time.Second); err != nil || rr.Res.K != 0 {
		t.Fatalf("before the edit: %v, %+v", err, routetest.SeenOf(docs, rr))
	}
	p := filepath.Join(dir, "skills", "s005", "SKILL.md")
	text := "---\nname: s005\ndescription: Export quokka census data from Zanzibar.\n---\n\n# Export\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, rr, err := serveClient(e).Route(prompt, "", s, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := routetest.SeenOf(docs, rr).Names; len(got) == 0 || got[0] != "s005" {
		t.Errorf("after editing s005, served %v, want s005 first", got)
	}

	other := *e.Cfg
	other.Model.FusionW = 0.9
	if _, _, err := serveClient(&workspace.Workspace{Reg: e.Reg, Cfg: &other}).Route(prompt, "", s, 5*time.Second); !errors.Is(err, serve.ErrNotServed) {
		t.Errorf("a client with another fusion weight: err %v, want a decline", err)
	}
}

// hookOnce runs the prompt hook in this process and returns its stdout and
// the decision it logged.
func hookOnce(t *testing.T, dir, session, prompt string) (string, decisionlog.Entry) {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"session_id": session, "prompt": prompt, "cwd": dir, "hook_event_name": "UserPromptSubmit"})
	var out, errOut bytes.Buffer
	a := &app{dir: dir, in: bytes.NewReader(in), out: &out, errOut: &errOut, now: time.Now}
	hookPromptRun(&hookPromptOptions{app: a, agent: hook.AgentClaude})
	data, err := os.ReadFile(filepath.Join(dir, ".megagit", "local", decisionLogName))
	if err != nil {
		t.Fatalf("no decision log (hook stderr: %s): %v", errOut.String(), err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	var d decisionlog.Entry
	if err := json.Unmarshal(lines[len(lines)-1], &d); err != nil {
		t.Fatal(err)
	}
	return out.String(), d
}

func TestHookPromptUsesServe(t *testing.T) {
	dir := serveTestRegistry(t, 40)
	t.Setenv("MEGAGIT_HOOK_DEADLINE_MS", "20000") // a loaded test machine must not cut the hook short
	const prompt = "stripe webhook signature fails with a timeout"
	here, d := hookOnce(t, dir, "s1", prompt)
	if d.Served || here == "" {
		t.Fatalf("without a server: served=%v, output %q", d.Served, here)
	}
	startServe(t, dir)
	there, d2 := hookOnce(t, dir, "s2", prompt)
	if !d2.Served {
		t.Fatalf("with a server running the hook routed in-process")
	}
	if there != here {
		t.Errorf("served hook output differs:\n%s\nin-process:\n%s", there, here)
	}
	if !reflect.DeepEqual(d.Skills, d2.Skills) || d.K != d2.K || d.Candidates != d2.Candidates || !reflect.DeepEqual(d.Scores, d2.Scores) {
		t.Errorf("served decision %+v\nin-process %+v", d2, d)
	}
	// The same session again: the served answer also knows what was injected.
	again, _ := hookOnce(t, dir, "s2", prompt)
	if again == there || !strings.Contains(again, "already loaded") {
		t.Errorf("second prompt of the session re-injected the skills:\n%s", again)
	}
}

// BenchmarkServed times one prompt routed by a warm server (socket round
// trip included) against the same prompt routed by a warm router in this
// process, on the registry MEGAGIT_BENCH_REGISTRY names: e.g. one of 1,000
// skills written by TestGenBenchRegistry or by the lab's benchreg tool
// (lab/NOTEBOOK.md, "A warm server", has past figures):
//
//	MEGAGIT_BENCH_REGISTRY=/tmp/reg1000 go test ./internal/cli -run x -bench Served
func BenchmarkServed(b *testing.B) {
	dir := os.Getenv("MEGAGIT_BENCH_REGISTRY")
	if dir == "" {
		b.Skip("set MEGAGIT_BENCH_REGISTRY to a registry")
	}
	e := startServe(b, dir)
	s := route.Settings{TopK: 10, Format: "catalog", Budget: 2000}
	const prompt = "my docker build cache is flaky in the ci pipeline"
	b.Run("serve", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := serveClient(e).Route(prompt, "", s, 10*time.Second); err != nil {
				b.Fatal(err)
			}
		}
	})
	rt, err := (&app{errOut: &bytes.Buffer{}}).router(e, true)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			rt.Route(prompt, s)
		}
	})
	if sem := workspace.SemanticOf(rt); sem != nil {
		b.Run("query-embedding", func(b *testing.B) {
			for b.Loop() {
				if _, err := sem.Embed(prompt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A socket that answers garbage, or indices outside its docs, never breaks
// routing: the hook routes in-process, prints the same skills, and notes
// why in hook.log.
func TestHookPromptIgnoresABadServer(t *testing.T) {
	dir := serveTestRegistry(t, 30)
	t.Setenv("MEGAGIT_HOOK_DEADLINE_MS", "20000")
	const prompt = "stripe webhook signature fails with a timeout"
	want, _ := hookOnce(t, dir, "", prompt)
	e := reopen(t, dir)
	for _, answer := range []string{"not json\n", `{"docs":[],"emitted":[5],"candidates":1}` + "\n"} {
		ln, err := net.Listen("unix", serve.SocketPath(e.Reg.Root(), e.Reg.LocalDir()))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				_, _ = bufio.NewReader(c).ReadBytes('\n')
				_, _ = c.Write([]byte(answer))
				c.Close()
			}
		}()
		got, d := hookOnce(t, dir, "", prompt)
		ln.Close()
		if got != want || d.Served {
			t.Errorf("server answering %q: served=%v, output\n%s\nwant\n%s", answer, d.Served, got, want)
		}
		log, _ := os.ReadFile(filepath.Join(dir, ".megagit", "local", hookLogName))
		if !strings.Contains(string(log), "bad answer") {
			t.Errorf("server answering %q: hook.log does not say why:\n%s", answer, log)
		}
	}
}
