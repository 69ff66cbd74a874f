package cli

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testRegistry makes a registry in a private HOME with a git identity,
// runs each setup command in it and returns its folder.
func testRegistry(t *testing.T, setup ...[]string) string {
	t.Helper()
	for _, env := range procEnv(t) {
		if k, v, ok := strings.Cut(env, "="); ok && (k == "HOME" || k == "XDG_CONFIG_HOME" || k == "GIT_CONFIG_NOSYSTEM") {
			t.Setenv(k, v)
		}
	}
	dir := filepath.Join(t.TempDir(), "reg")
	var errOut bytes.Buffer
	if code := run([]string{"init", dir}, nil, &bytes.Buffer{}, &errOut); code != 0 {
		t.Fatalf("megagit init: exit %d\n%s", code, errOut.String())
	}
	for _, args := range setup {
		args = append([]string{"-C", dir}, args...)
		if code := run(args, nil, &bytes.Buffer{}, &errOut); code != 0 {
			t.Fatalf("megagit %q: exit %d\n%s", args, code, errOut.String())
		}
	}
	return dir
}

// On a terminal the listing commands draw a table; into a pipe or file
// they write tab-separated lines a script can cut.
func TestTablesOnATerminal(t *testing.T) {
	dir := testRegistry(t,
		[]string{"skill", "add", "flaky-tests", "--description", "Find why tests fail randomly"},
		[]string{"skill", "add", "long-winded", "--description", strings.Repeat("Explain at length. ", 60)},
		[]string{"verdict", "flaky-tests", "HELPFUL", "--reason", "found the race"},
	)
	tests := []struct {
		args   []string
		header string // the first line into a pipe
		cell   string // a cell the table shows
	}{
		{[]string{"skill", "list"}, "NAME\tSTATUS\tHELPFUL\tHARMFUL\tSTREAK\tWEIGHT\tSOURCE\tPATH", "flaky-tests"},
		{[]string{"log"}, "TIME\tCOMMIT\tSKILL\tVERDICT\tSTATUS\tREASON", "found the race"},
		{[]string{"lint"}, "FILE\tLINE\tFIELD\tSEVERITY\tMESSAGE", "skills/long-winded/SKILL.md"},
		{[]string{"config"}, "KEY\tVALUE\tSOURCE", "route.top_k"},
		{[]string{"doctor", "--offline"}, "STATUS\tCHECK\tDETAIL\tHINT", "hooks"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			args := append([]string{"-C", dir}, tt.args...)
			var pipe, errOut bytes.Buffer
			if code := run(args, nil, &pipe, &errOut); code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut.String())
			}
			if got := strings.SplitN(pipe.String(), "\n", 2)[0]; got != tt.header {
				t.Errorf("piped header = %q, want %q", got, tt.header)
			}
			if !hasField(pipe.String(), tt.cell) {
				t.Errorf("no piped row has the field %q:\n%s", tt.cell, pipe.String())
			}

			var term tty
			if code := run(args, nil, &term, &errOut); code != 0 {
				t.Fatalf("on a terminal: exit %d\n%s", code, errOut.String())
			}
			out := term.String()
			if strings.Contains(out, "\t") || !strings.Contains(out, "│") || !strings.Contains(out, tt.cell) {
				t.Errorf("on a terminal printed no table with %q:\n%s", tt.cell, out)
			}
		})
	}
}

// hasField reports whether a row of tab-separated output (after the
// header) has a field that is exactly cell.
func hasField(tsv, cell string) bool {
	for _, line := range strings.Split(tsv, "\n")[1:] {
		if slices.Contains(strings.Split(line, "\t"), cell) {
			return true
		}
	}
	return false
}
