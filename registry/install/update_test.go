package install

import (
	"slices"
	"testing"
)

// The lines an update replaces and brings, bounded, and a binary file
// said to be one.
func TestLineDiff(t *testing.T) {
	got := lineDiff([]byte("one\ntwo\nthree\n"), []byte("one\n2\nthree\nfour\n"), 10)
	if want := []string{"- two", "+ 2", "+ four"}; !slices.Equal(got, want) {
		t.Fatalf("lineDiff = %q, want %q", got, want)
	}
	if got := lineDiff([]byte("a\nb\nc\n"), []byte("x\ny\nz\n"), 2); len(got) != 3 || got[2] != "(4 more lines)" {
		t.Fatalf("bounded: %q", got)
	}
	if got := lineDiff([]byte("a\x00b"), []byte("c"), 10); !slices.Equal(got, []string{"(binary file)"}) {
		t.Fatalf("binary: %q", got)
	}
	if Short("0123456789abcdef") != "0123456789ab" || Short("abc") != "abc" {
		t.Fatal("Short")
	}
}
