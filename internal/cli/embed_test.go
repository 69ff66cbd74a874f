package cli

import (
	"bytes"
	"testing"
)

// Flag parsing only: the run itself is covered by embed.txtar.
func TestEmbedFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, exitNotRegistry},
		{[]string{"--all", "--float16"}, exitNotRegistry},
		{[]string{"extra"}, exitUsage},
		{[]string{"--bogus"}, exitUsage},
	} {
		var out, errOut bytes.Buffer
		if got := run(append([]string{"-C", dir, "embed"}, tc.args...), nil, &out, &errOut); got != tc.code {
			t.Errorf("embed %v: exit %d, want %d (%s)", tc.args, got, tc.code, errOut.String())
		}
	}
}
