package decisionlog

import (
	"encoding/json"
	"testing"
)

// The log outlives releases: a line's field names are its format, and a
// line written by an older megagit must read the same.
func TestEntryFormat(t *testing.T) {
	e := Entry{Time: "2025-03-01T10:00:00Z", Session: "s1", Agent: "claude", PromptSHA: PromptHash("p"), Terms: []string{"docker"},
		Prompt: "p", K: 1, Reason: "confident", ZTop1: 2.5, ZEnt: -1, Scores: []float64{0.9}, Candidates: 3,
		Skills: []Skill{{Name: "a", Score: 0.9, New: true}}, Shadow: true, Served: true, Fallback: "lexical", LatencyMS: 1.5}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"time":"2025-03-01T10:00:00Z","session":"s1","agent":"claude","prompt_sha256":"148de9c5a7a44d19e56cd9ae1a554bf67847afb0c58f6e12fa29ac7ddfca9940","terms":["docker"],"prompt":"p","k":1,"reason":"confident","z_top1":2.5,"z_ent":-1,"scores":[0.9],"candidates":3,"skills":[{"name":"a","score":0.9,"new":true}],"shadow":true,"served":true,"fallback":"lexical","latency_ms":1.5}`
	if string(data) != want {
		t.Fatalf("line\n%s\nwant\n%s", data, want)
	}
	if got := Parse(append(data, '\n')); len(got) != 1 || got[0].Skills[0] != e.Skills[0] || got[0].Fallback != "lexical" {
		t.Fatalf("parsed %+v", got)
	}
}
