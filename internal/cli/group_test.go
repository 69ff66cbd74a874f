package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// runArgs runs megagit in process and returns its exit code and streams.
func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = runAt(args, strings.NewReader(""), &out, &errOut, time.Now)
	return code, out.String(), errOut.String()
}

// Every group (a command with subcommands and no run of its own) rejects
// an unknown subcommand and a missing one with a usage error, exit 2.
func TestGroupsRejectUnknownSubcommands(t *testing.T) {
	var groups []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Annotations[groupAnnotation] == "true" {
			groups = append(groups, c)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&app{}))
	var paths []string
	for _, g := range groups {
		paths = append(paths, g.CommandPath())
	}
	for _, want := range []string{"megagit", "megagit skill", "megagit model", "megagit cache", "megagit hook"} {
		if !strings.Contains(strings.Join(paths, ","), want) {
			t.Errorf("%s is not a strict group (groups: %q)", want, paths)
		}
	}
	for _, g := range groups {
		args := strings.Fields(strings.TrimPrefix(g.CommandPath(), "megagit"))
		t.Run(g.CommandPath(), func(t *testing.T) {
			code, out, errOut := runArgs(append(args, "nosuchsub")...)
			want := `megagit: error: unknown command "nosuchsub" for "` + g.CommandPath() + `"`
			if code != exitUsage || out != "" || !strings.Contains(errOut, want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no stdout, %q", code, out, errOut, want)
			}
			code, out, errOut = runArgs(args...)
			if code != exitUsage || out != "" || !strings.Contains(errOut, "Usage:\n  "+g.CommandPath()+" [command]") ||
				!strings.Contains(errOut, "megagit: error: "+g.CommandPath()+" needs a") {
				t.Errorf("bare: exit %d, stdout %q, stderr %q; want exit 2 with the help on stderr", code, out, errOut)
			}
			// The root lists its commands under group headings.
			listing := "Available Commands:"
			if len(g.Groups()) > 0 {
				listing = g.Groups()[0].Title
			}
			code, out, _ = runArgs(append([]string{"help"}, args...)...)
			if code != exitOK || !strings.Contains(out, listing) || strings.Contains(out, "\n  "+g.CommandPath()+"\n") {
				t.Errorf("help: exit %d, stdout %q; want exit 0 and the help without a bare usage line", code, out)
			}
		})
	}
}

func TestUnknownCommandHintsNearNames(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"skil"}, "megagit: hint: did you mean `megagit skill`?"},
		{[]string{"model", "lst"}, "megagit: hint: did you mean `megagit model list` or `megagit model use`?"},
		{[]string{"remote", "ad"}, "megagit: hint: did you mean `megagit remote add`?"},
	} {
		code, _, errOut := runArgs(c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

func TestHelpUnknownTopic(t *testing.T) {
	for _, args := range [][]string{{"help", "nosuch"}, {"help", "skill", "nosuch"}} {
		code, out, errOut := runArgs(args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "megagit: error: unknown help topic") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2", args, code, out, errOut)
		}
	}
	for _, args := range [][]string{{"help"}, {"help", "exit-codes"}, {"help", "skill", "add"}, {"skill", "--help"}} {
		if code, out, _ := runArgs(args...); code != exitOK || out == "" {
			t.Errorf("%q: exit %d, stdout %q; want exit 0 and help", args, code, out)
		}
	}
}

// A usage error says what is wrong once, with one hint: the command's own
// --help, or a hint of its own (did you mean ...?); a group run without a
// subcommand prints its usage once, then the error, and no hint sends the
// user to the usage they just read.
func TestUsageErrorsPrintUsageOnce(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string // stderr's lines after any usage, in order
		help bool     // stderr starts with the command's help
	}{
		{[]string{"route"}, []string{
			"megagit: error: megagit route expects one PROMPT (quote it) (got 0 argument(s))",
			"megagit: hint: run `megagit route --help` for usage"}, false},
		{[]string{"route", "a prompt", "--no-such-flag"}, []string{
			"megagit: error: unknown flag: --no-such-flag",
			"megagit: hint: run `megagit route --help` for usage"}, false},
		{[]string{"skill", "show", "x", "y"}, []string{
			"megagit: error: megagit skill show expects a skill NAME (got 2 argument(s))",
			"megagit: hint: run `megagit skill show --help` for usage"}, false},
		{[]string{"--no-such-flag"}, []string{
			"megagit: error: unknown flag: --no-such-flag",
			"megagit: hint: run `megagit --help` for usage"}, false},
		{[]string{"help", "nosuch"}, []string{
			`megagit: error: unknown help topic "nosuch"`,
			"megagit: hint: run `megagit --help` for usage"}, false},
		{[]string{"skil"}, []string{
			`megagit: error: unknown command "skil" for "megagit"`,
			"megagit: hint: did you mean `megagit skill`?"}, false},
		{[]string{"skill"}, []string{"megagit: error: megagit skill needs a subcommand"}, true},
		{[]string{"model"}, []string{"megagit: error: megagit model needs a subcommand"}, true},
	} {
		code, out, errOut := runArgs(c.args...)
		if code != exitUsage || out != "" {
			t.Errorf("%q: exit %d, stdout %q; want exit 2 and no stdout", c.args, code, out)
			continue
		}
		if n := strings.Count(errOut, "Usage:"); c.help && n != 1 || !c.help && n != 0 {
			t.Errorf("%q: stderr shows the usage %d times:\n%s", c.args, n, errOut)
		}
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		if c.help {
			lines = lines[max(0, len(lines)-len(c.want)):]
		}
		if strings.Join(lines, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%q: stderr\n%s\nwant it to end with\n%s", c.args, errOut, strings.Join(c.want, "\n"))
		}
	}
}
