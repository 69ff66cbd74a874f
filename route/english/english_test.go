package english

import (
	"strings"
	"testing"
)

func TestHas(t *testing.T) {
	for _, w := range []string{"stash", "unset", "separate", "pipeline", "constrictor", "zygote"} {
		if !Has(w) {
			t.Errorf("%q is an English word", w)
		}
	}
	for _, w := range []string{"seperate", "pipline", "kuberntes", "", "a", "zzzzzz", "aaaaa"} {
		if Has(w) {
			t.Errorf("%q is not in the list", w)
		}
	}
}

// TestEveryWordFound: the search finds every line of the list, which is
// sorted, lower-case and of five letters or more.
func TestEveryWordFound(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(words, "\n"), "\n")
	for i, w := range lines {
		if i > 0 && lines[i-1] >= w || len(w) < 5 || strings.ToLower(w) != w {
			t.Fatalf("line %d %q: the list must be sorted, unique, lower case, 5+ letters", i+1, w)
		}
		if !Has(w) {
			t.Fatalf("%q not found", w)
		}
	}
}
