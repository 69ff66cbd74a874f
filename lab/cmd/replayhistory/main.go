// Command replayhistory measures what importing the agents' history
// (`megagit learn history`, issue 41) does to routing, on a replay.
//
// run: for a benchmark folder it builds a registry of its skills in a
// hermetic home, writes one agent session per prompt of the "asked half"
// (half of each kind's prompts that need a skill, chosen by a hash of the
// id) in the agents' real file formats (Claude Code JSONL, and for a
// share of them Codex rollouts and Gemini CLI chats), runs the megagit
// binary's `learn history`, and routes the "held-out half" (the other
// half, and every prompt that needs no skill) before and after the import.
//
// `megagit eval` cannot see learnt prompts: it builds its documents from
// the benchmark's skills alone (workspace.SkillDocs, no registry, no
// learnt store). So the held-out prompts are routed in the registry, by
// the router `megagit route` and the prompt hook read (workspace.Router:
// the compiled index, whose documents carry the learnt prompts), and
// scored by eval's own Run and Summarize. With -check every routed prompt
// is also asked of the binary (`megagit route --json --no-serve`), whose
// emitted skills must be the same; and before the import the registry's
// figures are compared with `megagit eval` on the same prompts.
//
//	replayhistory run -bench DIR [-queries FILE] [-split dev|test] -megagit BIN -work DIR
//	    [-models default,none] [-learnt-w 0.25,0.5,1] [-codex 0.2] [-gemini 0.2] [-check] [-json FILE]
//	replayhistory gen -registry REG -home DIR -n N   # N Claude sessions over REG's skills (import speed)
//	replayhistory table FILE.json...                  # the Markdown tables again
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: replayhistory run|gen|table ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = runCmd(os.Args[2:])
	case "gen":
		err = genCmd(os.Args[2:])
	case "table":
		err = tableCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "replayhistory:", err)
		os.Exit(1)
	}
}

// query is one line of a benchmark's queries file, with its split.
type query struct {
	ID    string   `json:"id"`
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
	Kind  string   `json:"kind,omitempty"`
	Split string   `json:"split,omitempty"`
}

func loadQueries(file, split string) ([]query, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []query
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var q query
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		if q.Gold == nil {
			q.Gold = []string{}
		}
		if q.Kind == "" {
			q.Kind = map[bool]string{true: "null", false: "single"}[len(q.Gold) == 0]
		}
		if split == "" || q.Split == split {
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no queries (split %q)", file, split)
	}
	return out, sc.Err()
}

// hashOf orders ids deterministically, whatever the file's order.
func hashOf(salt, id string) uint64 {
	h := sha256.Sum256([]byte(salt + "\x00" + id))
	return binary.BigEndian.Uint64(h[:8])
}

// split is the asked half (per kind that has gold skills, the half of its
// prompts first by id hash, rounded down) and the held-out rest, with
// every prompt that needs no skill.
func split(qs []query) (asked, held []query) {
	byKind := map[string][]query{}
	var kinds []string
	for _, q := range qs {
		if len(q.Gold) == 0 {
			held = append(held, q)
			continue
		}
		if byKind[q.Kind] == nil {
			kinds = append(kinds, q.Kind)
		}
		byKind[q.Kind] = append(byKind[q.Kind], q)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		ks := byKind[k]
		sort.Slice(ks, func(i, j int) bool { return hashOf("split", ks[i].ID) < hashOf("split", ks[j].ID) })
		asked = append(asked, ks[:len(ks)/2]...)
		held = append(held, ks[len(ks)/2:]...)
	}
	sort.SliceStable(held, func(i, j int) bool { return held[i].ID < held[j].ID })
	return asked, held
}

// agentOf plays a prompt's session in claude (the rest), codex or gemini.
func agentOf(id string, codex, gemini float64) string {
	x := float64(hashOf("agent", id)%10000) / 10000
	switch {
	case x < codex:
		return "codex"
	case x < codex+gemini:
		return "gemini"
	}
	return "claude"
}

// hermetic points this process and every megagit it runs at a home of
// their own: no agent folder, user config or registry of the caller's,
// and no MEGAGIT_* or MEGA_EVAL_* setting.
func hermetic(home string) error {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MEGAGIT_") || strings.HasPrefix(k, "MEGA_EVAL_") {
			os.Unsetenv(k)
		}
	}
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"} {
		os.Unsetenv(k)
	}
	set := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME": filepath.Join(home, ".cache"), "XDG_STATE_HOME": filepath.Join(home, ".local", "state"),
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "replay", "GIT_AUTHOR_EMAIL": "replay@megagit.invalid",
		"GIT_COMMITTER_NAME": "replay", "GIT_COMMITTER_EMAIL": "replay@megagit.invalid",
	}
	for k, v := range set {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return os.MkdirAll(home, 0o755)
}

// run runs a command, its output returned; stderr joins the error.
func run(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// buildRegistry makes a registry at reg holding the benchmark's skills
// (each skills/<id>/ folder copied), committed.
func buildRegistry(mg, bench, reg string) error {
	if err := os.MkdirAll(reg, 0o755); err != nil {
		return err
	}
	if _, err := run(reg, "git", "init", "-q", "."); err != nil {
		return err
	}
	if _, err := run(reg, mg, "init", "."); err != nil {
		return err
	}
	if _, err := run(reg, "cp", "-r", filepath.Join(bench, "skills"), "."); err != nil {
		return err
	}
	if _, err := run(reg, "git", "add", "-A"); err != nil {
		return err
	}
	_, err := run(reg, "git", "commit", "-q", "-m", "the benchmark's skills")
	return err
}

// genCmd writes N Claude Code sessions, each a prompt answered with one of
// the registry's skills (in turn), for timing the import.
func genCmd(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	reg := fs.String("registry", "", "registry folder whose skills/ the sessions use")
	home := fs.String("home", "", "home folder to write the sessions under")
	n := fs.Int("n", 10000, "sessions")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *reg == "" || *home == "" {
		return errors.New("gen needs -registry and -home")
	}
	root, err := filepath.Abs(*reg)
	if err != nil {
		return err
	}
	descs, err := skillDescriptions(filepath.Join(root, "skills"))
	if err != nil {
		return err
	}
	names := make([]string, 0, len(descs))
	for name := range descs {
		names = append(names, name)
	}
	slices.Sort(names)
	base := time.Now().Add(-time.Duration(*n+60) * time.Second)
	for i := 0; i < *n; i++ {
		name := names[i%len(names)]
		s := session{Key: fmt.Sprintf("gen-%06d", i), Prompt: genPrompt(descs[name], i), Skills: []string{name}, Agent: "claude",
			At: base.Add(time.Duration(i) * time.Second), Cwd: root,
			SkillFile: func(n string) string { return filepath.Join(root, "skills", n, "SKILL.md") }}
		if _, err := writeSession(*home, s); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "replayhistory: %d Claude Code sessions over %d skills in %s\n", *n, len(names), *home)
	return nil
}

// genPrompt is a prompt in words of a skill's description: its first
// dozen words after one of a few openings, with a case number, so no two
// sessions share a prompt.
func genPrompt(desc string, i int) string {
	words := strings.Fields(desc)
	words = words[:min(len(words), 12)]
	open := []string{"can you", "please", "I need to", "help me", "let's"}[i%5]
	return fmt.Sprintf("%s %s (case %d)", open, strings.ToLower(strings.Join(words, " ")), i)
}

// skillDescriptions reads the description of each skills/<name>/SKILL.md.
func skillDescriptions(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name(), "SKILL.md"))
		if err != nil {
			continue
		}
		desc := e.Name()
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "description:"); ok {
				desc = strings.Trim(strings.TrimSpace(v), `"'`)
				break
			}
		}
		out[e.Name()] = desc
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no skills in %s", dir)
	}
	return out, nil
}
