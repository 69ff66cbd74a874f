package stop

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/local"
)

// hugeTranscript writes a transcript over MaxTranscript whose tail begins
// inside one line longer than the tail, another line of lineBytes in the
// tail, and a last turn with a tag.
func hugeTranscript(tb testing.TB, path string, lineBytes int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	chunk := strings.Repeat("0123456789abcdef", 4096)
	toolResult := func(id string, n int) {
		fmt.Fprintf(w, `{"type":"user","sessionId":"s","uuid":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"`, id)
		for written := 0; written < n; written += len(chunk) {
			w.WriteString(chunk)
		}
		w.WriteString("\"}]}}\n")
	}
	toolResult("u0", MaxTranscript+(2<<20))
	w.WriteString(`{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"our webhooks get rejected"}}` + "\n")
	if lineBytes > 0 {
		toolResult("u2", lineBytes)
	}
	w.WriteString(`{"type":"assistant","sessionId":"s","uuid":"a1","message":{"role":"assistant","content":[{"type":"text","text":"<skill-used name=\"webhook-signer\" verdict=\"HELPFUL\" reason=\"r\"/>"}]}}` + "\n")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkReadHugeTranscript reads, as the stop hook does, the tail of a
// 66 MiB transcript that begins inside a 66 MiB line, without and with a
// 32 MiB line inside the tail:
//
//	go test ./hook/stop -run x -bench HugeTranscript -benchtime 5x
func BenchmarkReadHugeTranscript(b *testing.B) {
	for _, bc := range []struct {
		name      string
		lineBytes int
	}{{"tail-starts-in-a-huge-line", 0}, {"and-a-huge-line-in-the-tail", 32 << 20}} {
		b.Run(bc.name, func(b *testing.B) {
			p := filepath.Join(b.TempDir(), "s.jsonl")
			hugeTranscript(b, p, bc.lineBytes)
			b.SetBytes(local.MaxTranscript)
			for b.Loop() {
				f, err := openTranscript(p, nil)
				if err != nil {
					b.Fatal(err)
				}
				tr, err := ReadClaudeTranscript(f, "s")
				f.Close()
				if err != nil || len(tr.Turns) != 1 || len(tr.Turns[0].Texts) != 1 {
					b.Fatalf("%+v, %v", tr, err)
				}
			}
		})
	}
}
