package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// On a terminal `skill list` draws a table; into a pipe or file it writes
// tab-separated lines a script can cut.
func TestSkillListTableOnATerminal(t *testing.T) {
	for _, env := range procEnv(t) {
		if k, v, ok := strings.Cut(env, "="); ok && (k == "HOME" || k == "XDG_CONFIG_HOME" || k == "GIT_CONFIG_NOSYSTEM") {
			t.Setenv(k, v)
		}
	}
	dir := filepath.Join(t.TempDir(), "reg")
	var errOut bytes.Buffer
	for _, args := range [][]string{{"init", dir}, {"-C", dir, "skill", "add", "flaky-tests", "--description", "Find why tests fail randomly"}} {
		if code := run(args, nil, &bytes.Buffer{}, &errOut); code != 0 {
			t.Fatalf("megagit %q: exit %d\n%s", args, code, errOut.String())
		}
	}

	var pipe bytes.Buffer
	if code := run([]string{"-C", dir, "skill", "list"}, nil, &pipe, &errOut); code != 0 {
		t.Fatalf("skill list: exit %d\n%s", code, errOut.String())
	}
	if got := strings.SplitN(pipe.String(), "\n", 2)[0]; got != "NAME\tSTATUS\tHELPFUL\tHARMFUL\tSTREAK\tWEIGHT\tPATH" {
		t.Errorf("piped header = %q, want tab-separated", got)
	}

	var term tty
	if code := run([]string{"-C", dir, "skill", "list"}, nil, &term, &errOut); code != 0 {
		t.Fatalf("skill list on a terminal: exit %d\n%s", code, errOut.String())
	}
	out := term.String()
	if strings.Contains(out, "\t") || !strings.Contains(out, "│") || !strings.Contains(out, "flaky-tests") {
		t.Errorf("on a terminal skill list printed no table:\n%s", out)
	}
}
