package archtest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// compiledMagic are the first bytes of a compiled program or library: ELF
// (Linux), Mach-O in both byte orders and both widths, a Mach-O universal
// binary, PE (Windows, "MZ") and WebAssembly.
var compiledMagic = [][]byte{
	{0x7f, 'E', 'L', 'F'},
	{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe},
	{0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
	{'M', 'Z'},
	{0x00, 'a', 's', 'm'},
}

// isCompiled says whether head (a file's first bytes) starts as a compiled
// program does.
func isCompiled(head []byte) bool {
	for _, m := range compiledMagic {
		if bytes.HasPrefix(head, m) {
			return true
		}
	}
	return false
}

// No tracked file is a compiled program: a `go build` output committed by
// mistake (a megagit-hook at the root once was) bloats every clone and is
// no source. The trained model megagit ships is data (.npy), not a program.
func TestNoTrackedBinary(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git: the tracked files cannot be listed")
	}
	cmd := exec.Command(git, "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): the tracked files cannot be listed", err)
	}
	for _, name := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		path := filepath.Join(root, string(name))
		f, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		head := make([]byte, 4)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if isCompiled(head[:n]) {
			t.Errorf("%s is a compiled program: `git rm --cached %s` and ignore it in .gitignore", name, name)
		}
	}
}

func TestIsCompiled(t *testing.T) {
	for _, tt := range []struct {
		head []byte
		want bool
	}{
		{[]byte("\x7fELF"), true},
		{[]byte{0xcf, 0xfa, 0xed, 0xfe}, true},
		{[]byte("MZ\x90\x00"), true},
		{[]byte("\x00asm"), true},
		{[]byte("\x93NUMPY"), false},
		{[]byte("pack"), false},
		{[]byte("# ti"), false},
		{nil, false},
	} {
		if got := isCompiled(tt.head); got != tt.want {
			t.Errorf("isCompiled(%q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}
