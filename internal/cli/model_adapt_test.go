package cli

import (
	"bytes"
	"strings"
	"testing"
)

// Flag parsing only: the run itself is covered by model_adapt.txtar.
func TestModelAdaptFlags(t *testing.T) {
	dir := t.TempDir() // not a registry: valid flags get as far as exit 3
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--holdout", "0"}, exitUsage, "--holdout between 0 and 1"},
		{[]string{"--holdout", "1"}, exitUsage, "--holdout between 0 and 1"},
		{[]string{"--epochs", "0"}, exitUsage, "--epochs must be positive"},
		{[]string{"--lr", "-1"}, exitUsage, "--lr above 0"},
		{[]string{"--from-ledger=false"}, exitUsage, "only source"},
		{[]string{"extra"}, exitUsage, "no arguments"},
		{nil, exitNotRegistry, "not a megagit registry"},
		{[]string{"--from-ledger", "--epochs", "5", "--lr", "0.02", "--holdout", "0.3", "--seed", "7"}, exitNotRegistry, "not a megagit registry"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"-C", dir, "model", "adapt"}, tc.args...)
			if got := run(args, nil, &out, &errOut); got != tc.code || !strings.Contains(errOut.String(), tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", got, errOut.String(), tc.code, tc.msg)
			}
		})
	}
}
