package passages

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	body := "intro words here\n## Steps\none two three four five\n```sh\n# not a heading\nrun it\n```\n## Gotchas\nsix"
	got := Split(body, 3)
	want := []string{
		"intro words here",
		"Steps one two three",
		"Steps four five #",
		"Steps not a heading",
		"Steps run it",
		"Gotchas six",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Split = %q, want %q", got, want)
	}
	if n := len(Split("", 48)); n != 0 {
		t.Fatalf("empty body: %d passages", n)
	}
	if got := Split("a b", 0); !reflect.DeepEqual(got, []string{"a b"}) {
		t.Fatalf("words 0: %q", got)
	}
}
