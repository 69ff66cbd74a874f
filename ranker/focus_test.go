package ranker

import (
	"reflect"
	"strings"
	"testing"
)

// story is narrative about an outage and a sprint: words a postmortem
// skill and a sprint-planning skill contain, and not the request's.
const story = "Yesterday we had an outage and the incident review ran late. " +
	"Our sprint planning was cancelled, and the postmortem is still unwritten. " +
	"The team is small and everyone is tired after the outage. " +
	"I have been on this codebase for two weeks and the person who wrote it left. " +
	"My manager wants this done before the end of the sprint, after the outage review. "

func focusDocs() []Doc {
	return []Doc{
		{ID: "incident-postmortem", Description: "Write a blameless postmortem after an outage or incident review.", Weight: 1},
		{ID: "sprint-planning", Description: "Plan a sprint: capacity, planning poker and the sprint goal.", Weight: 1},
		{ID: "csv-export", Description: "Export a database table to CSV with the right quoting.", Weight: 1},
		{ID: "pdf-extract", Description: "Extract text and tables from PDF files.", Weight: 1},
	}
}

func TestFocusOf(t *testing.T) {
	tests := []struct {
		name, text string
		want       []bool // Request of each sentence; nil: no focus
	}{
		{"short prompt", "export the orders table to CSV. it is urgent.", nil},
		{"49 words", strings.Repeat("word ", 48) + "export.", nil},
		{"narrative then ask", story + "Export the orders table to CSV.", []bool{false, false, false, false, false, true}},
		{"ask then a closing remark", story + "Can you export the orders table to CSV? Thanks a lot, it has been a long week.", []bool{false, false, false, false, false, true, true}},
		{"a question in the middle", story + "Why does the export hang? The table is large.", []bool{false, false, false, false, false, true, true}},
		{"request phrase", story + "I need the orders table as CSV. The rest can wait.", []bool{false, false, false, false, false, true, true}},
		{"lines", strings.ReplaceAll(story, ". ", "\n") + "export the orders table to CSV", []bool{false, false, false, false, false, true}},
		{"every sentence asks", strings.Repeat("Export the orders table to CSV. ", 10), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := FocusOf(tt.text)
			var got []bool
			for _, s := range f {
				got = append(got, s.Request)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FocusOf = %v, want %v (%v)", got, tt.want, f)
			}
		})
	}
}

func TestFocusRequest(t *testing.T) {
	f := FocusOf(story + "Can you export the orders table to CSV? Thanks a lot, it has been a long week.")
	if got, want := f.Request(), "Can you export the orders table to CSV? Thanks a lot, it has been a long week."; got != want {
		t.Errorf("Request() = %q, want %q", got, want)
	}
	if f.Narrated() != 5 {
		t.Errorf("Narrated() = %d, want 5", f.Narrated())
	}
}

// A prompt under LongPromptWords words is scored exactly as before the
// sentences were weighed: the same query, bit for bit.
func TestShortPromptScoredAsBefore(t *testing.T) {
	ix := NewIndex(focusDocs(), DefaultConfig())
	for _, p := range []string{
		"export the orders table to CSV",
		"we had an outage yesterday. write the postmortem. then plan the sprint, please",
		strings.Repeat("outage ", 30) + "csv",
	} {
		if f := FocusOf(p); f != nil {
			t.Fatalf("FocusOf(%q) = %v, want nil", p, f)
		}
		if got, want := ix.parse(ix.ReadWith(p, "")), ix.parse(ix.Read(p)); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: query %+v, want %+v", p, got, want)
		}
		res := ix.Rank(p, Options{})
		raw := make([]float64, len(ix.docs))
		ix.lexical(ix.parse(ix.Read(p)), raw)
		for _, b := range res.Ranked {
			if b.LexicalRaw != raw[b.Doc] {
				t.Errorf("%q: %s scored %v, want %v", p, b.ID, b.LexicalRaw, raw[b.Doc])
			}
		}
		if res.Focus != nil || res.Signals.Terms != len(uniqueTerms(Tokenize(p))) {
			t.Errorf("%q: focus %v, terms %d", p, res.Focus, res.Signals.Terms)
		}
	}
}

// A long prompt's request outweighs its narrative: the skill it asks for
// leads, where every word counting alike would put the story's first.
func TestLongPromptRequestOutweighsNarrative(t *testing.T) {
	ix := NewIndex(focusDocs(), DefaultConfig())
	p := story + "Export the orders table to CSV."
	raw := make([]float64, len(ix.docs))
	ix.lexical(ix.parse(ix.Read(p)), raw)
	if raw[2] >= raw[0] {
		t.Fatalf("unweighed, csv-export scores %v against the postmortem's %v: the test shows nothing", raw[2], raw[0])
	}
	res := ix.Rank(p, Options{})
	if res.Ranked[0].ID != "csv-export" {
		t.Errorf("ranked %s first, want csv-export", res.Ranked[0].ID)
	}
	if res.Focus == nil || res.Focus.Narrated() != 5 {
		t.Errorf("focus %v, want 5 narrative sentences", res.Focus)
	}
	// The gate reads the request's length, not the story's.
	if want := len(uniqueTerms(Tokenize("Export the orders table to CSV."))); res.Signals.Terms != want {
		t.Errorf("signals count %d terms, want the request's %d", res.Signals.Terms, want)
	}
}

// The project's name joins a long prompt's query after its sentences are
// weighed: it never becomes the "last sentence" that demotes the ask.
func TestAlsoJoinsAfterFocus(t *testing.T) {
	ix := NewIndex(focusDocs(), DefaultConfig())
	p := story + "Export the orders table to CSV."
	res := ix.Rank(p, Options{Also: "payments-api"})
	if res.Ranked[0].ID != "csv-export" {
		t.Errorf("ranked %s first, want csv-export", res.Ranked[0].ID)
	}
	if n := len(res.Focus); n != 7 || !res.Focus[n-2].Request || res.Focus[n-1].Text != "payments-api" {
		t.Errorf("focus %v", res.Focus)
	}
	short := "export the orders table to CSV"
	got, want := ix.Rank(short, Options{Also: "payments-api"}), ix.Rank(short+"\npayments-api", Options{})
	if !reflect.DeepEqual(got.Ranked, want.Ranked) {
		t.Errorf("a short prompt with Also ranks differently from prompt + \"\\n\" + project")
	}
}

// BenchmarkRankLongPrompt is Rank of a 90-word prompt over 1,000 skills:
// the long prompt's sentences cut, read and weighed.
func BenchmarkRankLongPrompt(b *testing.B) {
	ix := NewIndex(synthDocs(1000), DefaultConfig())
	q := strings.Repeat("Yesterday we had an outage and w12x was down for an hour. ", 6) +
		"My manager asked me to look at w77x before the sprint ends. Please deploy w300x with w1500x and w2999x."
	for b.Loop() {
		ix.Rank(q, Options{})
	}
}
