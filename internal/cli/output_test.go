package cli

import (
	"bytes"
	"os"
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
		if k, v, ok := strings.Cut(env, "="); ok && (k == "HOME" || k == "XDG_CONFIG_HOME" || k == "XDG_DATA_HOME" || k == "MEGAGIT_USER_REGISTRY" || k == "GIT_CONFIG_NOSYSTEM") {
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
		{[]string{"skill", "list"}, "NAME\tSTATUS\tHELPFUL\tHARMFUL\tSTREAK\tWEIGHT\tORIGIN\tSOURCE\tPATH", "flaky-tests"},
		{[]string{"log"}, "TIME\tCOMMIT\tSKILL\tVERDICT\tSTATUS\tREASON", "found the race"},
		{[]string{"lint"}, "FILE\tLINE\tFIELD\tSEVERITY\tMESSAGE", "skills/long-winded/SKILL.md"},
		{[]string{"config"}, "KEY\tIN FORCE\tSOURCE", "route.top_k"},
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

// Text megagit did not write reaches a terminal escaped: a description
// with ESC and BEL written by hand (skill add would have removed them),
// and table cells, on a terminal and into a pipe.
func TestControlCharactersAreShownEscaped(t *testing.T) {
	dir := testRegistry(t, []string{"skill", "add", "flaky-tests", "--description", "Find flaky tests\x1b now"})
	skill := filepath.Join(dir, "skills", "flaky-tests", "SKILL.md")
	data, err := os.ReadFile(skill)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `\e`) || strings.Contains(string(data), "\x1b") {
		t.Fatalf("skill add kept the ESC:\n%s", data)
	}
	data = []byte(strings.Replace(string(data), `"Find flaky tests now"`, `"Find flaky tests\e]0;pwned\a now"`, 1))
	if err := os.WriteFile(skill, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-C", dir, "skill", "show", "flaky-tests"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("skill show: exit %d\n%s", code, errOut.String())
	}
	if !strings.Contains(out.String(), `Find flaky tests\x1b]0;pwned\x07 now`) || strings.ContainsAny(out.String(), "\x1b\a") {
		t.Errorf("skill show:\n%q", out.String())
	}
	rows := [][]string{{"a\x1b[2Jb", "bell\a\u202eend"}}
	for _, w := range []interface {
		String() string
		Write([]byte) (int, error)
	}{&bytes.Buffer{}, &tty{}} {
		if err := printTable(w, []string{"A", "B"}, rows); err != nil {
			t.Fatal(err)
		}
		got := w.String()
		if !strings.Contains(got, `a\x1b[2Jb`) || !strings.Contains(got, `bell\x07\u202eend`) || strings.ContainsAny(got, "\x1b\a\u202e") {
			t.Errorf("table:\n%q", got)
		}
	}
}
