package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// noResult are the runnable commands that report no result, so need no
// --json: groups (they print help), the hooks (their stdout is the
// agent's) and the servers (they run until stopped).
var noResult = map[string]string{
	"megagit":                    "group",
	"megagit cache":              "group",
	"megagit hook":               "group",
	"megagit model":              "group",
	"megagit skill":              "group",
	"megagit learn":              "group",
	"megagit hook prompt":        "hook: stdout is the agent's",
	"megagit hook stop":          "hook: stdout is the agent's",
	"megagit hook session-start": "hook: stdout is the agent's",
	"megagit serve":              "runs until stopped",
	"megagit mcp":                "runs until stopped; stdout is the MCP protocol",
}

// jsonCase runs one command with --json in the shared fixture: args
// (without "megagit", with --json), the keys its object must have (or, for
// a list, each of its items), and skip when it cannot run here.
type jsonCase struct {
	args []string
	keys []string
	list bool
	skip string
}

// TestEveryResultHasJSON walks the command tree: every command that
// reports a result has --json, and every --json prints one JSON value on
// stdout with the expected fields, run in order against one registry.
func TestEveryResultHasJSON(t *testing.T) {
	gitHome(t)
	t.Setenv("MEGAGIT_MODEL_HUB", "http://127.0.0.1:1")
	work := t.TempDir()
	reg := filepath.Join(work, "reg")
	src := filepath.Join(work, "outside", "imported")
	writeTestFile(t, filepath.Join(src, "SKILL.md"), "---\nname: imported\ndescription: Imported from elsewhere.\n---\n# Imported\n")
	upstream := filepath.Join(work, "upstream")
	writeTestFile(t, filepath.Join(upstream, "skills", "fetched", "SKILL.md"), "---\nname: fetched\ndescription: Fetched from git. Use when testing.\n---\n# Fetched\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "one skill"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = upstream
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	pairs := filepath.Join(work, "pairs.jsonl")
	var p strings.Builder
	for _, w := range []string{"go", "sql", "docker", "git"} {
		p.WriteString(`{"a": "help with ` + w + `", "b": "the ` + w + ` skill"}` + "\n")
	}
	writeTestFile(t, pairs, p.String())

	cases := []struct {
		path string // the command path, as cobra names it
		jsonCase
	}{
		{"megagit init", jsonCase{args: []string{"init", reg, "--json"}, keys: []string{"root", "layout", "commit", "files"}}},
		{"megagit layout", jsonCase{args: []string{"-C", reg, "layout", "--json"}, keys: []string{"layout", "branch", "commit", "skills", "untrack"}}},
		{"megagit skill add", jsonCase{args: []string{"skill", "add", "alpha", "--description", "Lint Go code.", "--json"}, keys: []string{"name", "path", "commit"}}},
		{"megagit skill import", jsonCase{args: []string{"skill", "import", src, "--json"}, keys: []string{"commit", "skills", "warnings"}}},
		{"megagit skill list", jsonCase{args: []string{"skill", "list", "--json"}, keys: []string{"name", "status", "helpful_count"}, list: true}},
		{"megagit skill show", jsonCase{args: []string{"skill", "show", "alpha", "--json"}, keys: []string{"name", "status", "trajectory_weight"}}},
		{"megagit verdict", jsonCase{args: []string{"verdict", "alpha", "HARMFUL", "--json"},
			keys: []string{"skill", "verdict", "id", "commit", "status_before", "status_after", "helpful_count", "harmful_count"}}},
		{"megagit revert", jsonCase{args: []string{"revert", "HEAD", "--json"}, keys: []string{"commit", "reverted"}}},
		{"megagit resync", jsonCase{args: []string{"resync", "--json"}, keys: []string{"commit", "rebuilt"}}},
		{"megagit log", jsonCase{args: []string{"log", "--json"}, keys: []string{"time", "commit", "skill", "kind"}, list: true}},
		{"megagit unarchive", jsonCase{args: []string{"unarchive", "imported", "--reason", "fixed", "--json"},
			keys: []string{"skill", "commit", "status_before", "status_after"}}},
		{"megagit skill disable", jsonCase{args: []string{"skill", "disable", "alpha", "--reason", "noisy", "--json"},
			keys: []string{"skill", "disabled", "reason", "registry", "commit"}}},
		{"megagit skill enable", jsonCase{args: []string{"skill", "enable", "alpha", "--reason", "fixed", "--json"},
			keys: []string{"skill", "disabled", "reason", "registry", "commit"}}},
		{"megagit stats", jsonCase{args: []string{"stats", "--json"}, keys: []string{"decisions", "injecting", "skills", "pairs", "never_injected", "unused", "not_offered", "held_back"}}},
		{"megagit skill mv", jsonCase{args: []string{"skill", "mv", "imported", "moved", "--json"}, keys: []string{"from", "to", "path", "ledger", "commit", "files"}}},
		{"megagit skill rm", jsonCase{args: []string{"skill", "rm", "moved", "--json"}, keys: []string{"name", "commit", "ledger", "files"}}},
		{"megagit skill install", jsonCase{args: []string{"skill", "install", "file://" + upstream, "--json"}, keys: []string{"source", "ref", "source_commit", "skills", "commit", "warnings"}}},
		{"megagit skill update", jsonCase{args: []string{"skill", "update", "--json"}, keys: []string{"skills", "commit"}}},
		{"megagit skill verify", jsonCase{args: []string{"skill", "verify", "--json"}, keys: []string{"skills", "ok"}}},
		{"megagit lint", jsonCase{args: []string{"lint", "--json"}, list: true}},
		{"megagit audit", jsonCase{args: []string{"audit", "--json"}, keys: []string{"skill", "source", "findings"}, list: true}},
		{"megagit adopt", jsonCase{args: []string{"adopt", "--dry-run", "--json"}, keys: []string{"restore", "dry_run", "hidden", "shown", "already", "moved_back", "skipped"}}},
		{"megagit learn history", jsonCase{args: []string{"learn", "history", "--dry-run", "--json"}, keys: []string{"sessions", "read", "skipped", "uses", "spoiled", "unknown", "learnt", "dry_run"}}},
		{"megagit learn share", jsonCase{args: []string{"learn", "share", "--json"}, keys: []string{"share", "already", "kept", "commit"}}},
		{"megagit learn forget", jsonCase{args: []string{"learn", "forget", "--all", "--json"}, keys: []string{"forgotten"}}},
		{"megagit config", jsonCase{args: []string{"config", "--json"}, keys: []string{"key", "value", "source"}, list: true}},
		{"megagit model list", jsonCase{args: []string{"model", "list", "--json"}, keys: []string{"id", "kind"}, list: true}},
		{"megagit model use", jsonCase{args: []string{"model", "use", "megagit-static-v3", "--json"}, keys: []string{"settings", "summary", "commit", "notes"}}},
		{"megagit embed", jsonCase{args: []string{"embed", "--json"}, keys: []string{"model", "cache", "skills", "texts_computed", "commit"}}},
		{"megagit cache status", jsonCase{args: []string{"cache", "status", "--json"}, keys: []string{"model", "caches"}}},
		{"megagit cache verify", jsonCase{args: []string{"cache", "verify", "--json"}, keys: []string{"model", "caches"}}},
		{"megagit index", jsonCase{args: []string{"index", "--json"}, keys: []string{"skills", "model"}}},
		{"megagit route", jsonCase{args: []string{"route", "lint my go code", "--json"}}},
		{"megagit why", jsonCase{args: []string{"why", "lint my go code", "alpha", "--json"}}},
		{"megagit decisions", jsonCase{args: []string{"decisions", "--json"}, list: true}},
		{"megagit tune", jsonCase{args: []string{"tune", "--json"}, keys: []string{"decisions"}}},
		{"megagit hook install", jsonCase{args: []string{"hook", "install", "--command", "megagit", "--json"},
			keys: []string{"agent", "scope", "path", "changed", "dry_run", "diff", "next"}}},
		{"megagit hook uninstall", jsonCase{args: []string{"hook", "uninstall", "--json"}, keys: []string{"agent", "scope", "path", "changed", "next"}}},
		{"megagit doctor", jsonCase{args: []string{"doctor", "--offline", "--json"}, keys: []string{"name", "status", "detail"}, list: true}},
		{"megagit remote add", jsonCase{args: []string{"remote", "add", "origin", filepath.Join(work, "shared.git"), "--json"}, keys: []string{"name", "url"}}},
		{"megagit remote", jsonCase{args: []string{"remote", "--json"}, keys: []string{"name"}, list: true}},
		{"megagit clone", jsonCase{args: []string{"clone", "file://" + reg, filepath.Join(work, "mine"), "--json"}, keys: []string{"url", "root", "skills"}}},
		{"megagit sync", jsonCase{args: []string{"-C", filepath.Join(work, "mine"), "sync", "--json"}}},
		{"megagit model train", jsonCase{args: []string{"model", "train", "--pairs", pairs, "--out", filepath.Join(work, "model"),
			"--dim", "8", "--epochs", "1", "--batch", "2", "--json"}, keys: []string{"id", "out", "dim", "pairs"}}},
		{"megagit version", jsonCase{args: []string{"version", "--json"}, keys: []string{"version"}}},
		{"megagit model pull", jsonCase{skip: "downloads a model: TestModelPullRun checks its JSON against a local hub"}},
		{"megagit model adapt", jsonCase{skip: "needs a registry's worth of verdicts: model_adapt.txtar"}},
		{"megagit eval", jsonCase{skip: "needs a benchmark folder: eval.txtar"}},
	}

	withJSON := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := c.CommandPath()
		if c.Runnable() && !c.Hidden {
			if c.Flags().Lookup("json") != nil {
				withJSON[path] = true
			} else if _, ok := noResult[path]; !ok {
				t.Errorf("%s reports a result but has no --json flag (or add it to noResult with why)", path)
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(&app{}))
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.path] = true
		if !withJSON[tc.path] {
			t.Errorf("case %s: the command has no --json flag", tc.path)
		}
	}
	var missing []string
	for path := range withJSON {
		if !covered[path] {
			missing = append(missing, path)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("commands with --json and no case here: %s", strings.Join(missing, ", "))
	}

	for _, tc := range cases {
		if tc.skip != "" {
			continue
		}
		args := tc.args
		if tc.path != "megagit init" && tc.path != "megagit clone" && args[0] != "-C" {
			args = append([]string{"-C", reg}, args...)
		}
		if tc.path == "megagit unarchive" {
			for range 3 { // three harmful verdicts in a row archive it
				mustRun(t, 0, "-C", reg, "verdict", "imported", "HARMFUL")
			}
		}
		var out, errOut bytes.Buffer
		if code := run(args, nil, &out, &errOut); code != 0 {
			t.Errorf("megagit %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
			continue
		}
		checkOneJSON(t, tc.path, out.Bytes(), tc.keys, tc.list)
	}
}

// checkOneJSON fails unless data is exactly one JSON value: an object with
// keys, or (list) an array whose items have them.
func checkOneJSON(t *testing.T, name string, data []byte, keys []string, list bool) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Errorf("%s --json: not JSON: %v\n%s", name, err, data)
		return
	}
	if dec.More() {
		t.Errorf("%s --json: more than one JSON value on stdout:\n%s", name, data)
	}
	var objs []map[string]any
	if list {
		items, ok := v.([]any)
		if !ok {
			t.Errorf("%s --json: want a list, got %T", name, v)
			return
		}
		for _, it := range items {
			m, _ := it.(map[string]any)
			objs = append(objs, m)
		}
	} else {
		m, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s --json: want an object, got %T", name, v)
			return
		}
		objs = append(objs, m)
	}
	for _, m := range objs {
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s --json: no %q field in %v", name, k, m)
			}
		}
	}
}

func writeTestFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
