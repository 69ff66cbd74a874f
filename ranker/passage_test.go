package ranker

import (
	"reflect"
	"testing"
)

// TestBestPassage: the section sharing the most of the prompt's terms
// wins, with its first line that holds one; headings inside code fences do
// not split sections; a body sharing nothing has no passage.
func TestBestPassage(t *testing.T) {
	body := "Intro line about images.\n\n## Resize\nUse sharp to resize.\nThen compress the photos for the web.\n\n" +
		"## Gotchas\n```sh\n# not a heading: compress photos\nsquoosh --resize photos\n```\nWatch the colour profile.\n"
	p, ok := BestPassage(body, "compress and resize my holiday photos")
	want := Passage{Heading: "Resize", Line: "Use sharp to resize.", Terms: []string{"compress", "resiz", "photo"}}
	if !ok || !reflect.DeepEqual(p, want) {
		t.Errorf("BestPassage = %+v, %v; want %+v", p, ok, want)
	}
	if p, ok := BestPassage(body, "rotate the logs"); ok {
		t.Errorf("no shared term, got %+v", p)
	}
	if p, ok := BestPassage(body, "the colour profile"); !ok || p.Heading != "Gotchas" || p.Line != "Watch the colour profile." {
		t.Errorf("colour profile: %+v, %v", p, ok)
	}
}
