// Package numpytest finds a Python with numpy for the tests that check
// megagit's .npy files against numpy's, both ways.
package numpytest

import (
	"os/exec"
	"testing"
)

// Python is a Python with numpy (the PATH one may be a pyenv shim without
// it; Debian's python3-numpy lives under /usr/bin), or skips the test.
func Python(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(p); err == nil {
			if exec.Command(path, "-c", "import numpy").Run() == nil {
				return path
			}
		}
	}
	t.Skip("python3 with numpy not available")
	return ""
}
