package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// parseOnly builds a command with a runF stub, runs it on args and returns
// the options the stub received: flag parsing without running the command.
func parseOnly[O any](t *testing.T, build func(*app, func(*O) error) *cobra.Command, args ...string) (*O, error) {
	t.Helper()
	var got *O
	a := &app{out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}
	cmd := build(a, func(o *O) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	err := cmd.Execute()
	if err == nil && got == nil {
		t.Fatalf("%q: the command returned without calling runF", args)
	}
	return got, err
}

// wantUsageError fails unless err is a usage error (exit 2) containing want.
func wantUsageError(t *testing.T, err error, want string) {
	t.Helper()
	var u usageError
	if err == nil || !errors.As(err, &u) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want a usage error containing %q", err, want)
	}
}

// tty is a buffer megagit treats as a terminal.
type tty struct{ bytes.Buffer }

func (*tty) IsTerminal() bool { return true }
