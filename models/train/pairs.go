package train

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/models"
)

// TextPair is one line of a pairs file: A should embed near B.
type TextPair struct {
	A string `json:"a"`
	B string `json:"b"`
}

// ReadPairs reads a .jsonl or .jsonl.gz file of {"a": ..., "b": ...} lines
// (other fields ignored), keeping at most max pairs when max > 0. Lines with
// an empty a or b are skipped; a line that is not such an object is an error
// naming the file and line. It also returns the file's sha256, which keys the
// tokenised cache and goes into a model's recipe.
func ReadPairs(path string, max int) ([]TextPair, string, error) {
	f, _, err := local.OpenRegular(path) // a FIFO or a device is refused, never read
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	h := sha256.New()
	var r io.Reader = io.TeeReader(bufio.NewReaderSize(f, 1<<20), h)
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 16<<20)
	var out []TextPair
	line := 0
	for sc.Scan() && (max <= 0 || len(out) < max) {
		line++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var p TextPair
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, "", fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if strings.TrimSpace(p.A) == "" || strings.TrimSpace(p.B) == "" {
			continue
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	// Hash the whole file even when max stopped the scan early.
	if _, err := io.Copy(io.Discard, r); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return out, hex.EncodeToString(h.Sum(nil)), nil
}

// TokenizePairs turns text pairs into id pairs on all cores, in input order.
// Pairs where either side has no known token are dropped (they carry no
// signal and would be a zero vector).
func TokenizePairs(tok *models.Tokenizer, texts []TextPair, workers int) []Pair {
	ids := make([]Pair, len(texts))
	parallelFor(len(texts), workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ids[i] = Pair{A: tok.IDs(texts[i].A), B: tok.IDs(texts[i].B)}
		}
	})
	out := ids[:0]
	for _, p := range ids {
		if len(p.A) > 0 && len(p.B) > 0 {
			out = append(out, p)
		}
	}
	return out
}
