package stop

import (
	"bytes"
	"testing"
)

// FuzzTranscript: any bytes as a transcript never panic, every tag of the
// assistant's text has a clean reason, and no text quoted in a fence
// yields a tag. Seeds: testdata/fuzz/FuzzTranscript.
func FuzzTranscript(f *testing.F) {
	f.Add([]byte(`{"type":"user","sessionId":"s","message":{"role":"user","content":"fix it"}}
{"type":"assistant","sessionId":"s","message":{"content":[{"type":"text","text":"done <skill-used name=\"a\" verdict=\"HELPFUL\" reason=\"ok\\u0000\\u001b[2J\"/>"}]}}
`))
	f.Add([]byte(`{"type":"assistant","sessionId":"other","message":{"content":"<skill-used name=\"a\" verdict=\"HARMFUL\"/>"}}`))
	f.Add([]byte("{\"type\":\"assistant\"\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadClaudeTranscript(bytes.NewReader(data), "s")
		if err != nil {
			t.Fatal(err) // a reader of bytes never fails
		}
		for _, turn := range tr.Turns {
			for _, tx := range turn.Texts {
				for _, tag := range ParseTags(tx.Text) {
					checkCleanReason(t, tag)
				}
				checkNoTagInCode(t, tx.Text)
			}
		}
	})
}
