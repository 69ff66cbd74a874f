package train

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megagit/megagit/models"
)

const pairsFixture = `{"a": "pdf tools", "b": "Merge and split PDF documents", "source": "pypi"}

{"a": "", "b": "no name: skipped"}
{"a": "speech", "b": "Transcribe audio to text"}
{"a": "cafe", "b": "Café ordering helpers"}
`

func writePairsFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	data := []byte(content)
	if strings.HasSuffix(name, ".gz") {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(data)
		zw.Close()
		data = buf.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadPairs(t *testing.T) {
	want := []TextPair{
		{"pdf tools", "Merge and split PDF documents"},
		{"speech", "Transcribe audio to text"},
		{"cafe", "Café ordering helpers"},
	}
	for _, name := range []string{"p.jsonl", "p.jsonl.gz"} {
		path := writePairsFile(t, name, pairsFixture)
		got, sum, err := ReadPairs(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %q", name, got)
		}
		if file, _ := FileSHA256(path); sum != file {
			t.Errorf("%s: sha256 %s, file has %s", name, sum, file)
		}
		if got, _, _ := ReadPairs(path, 2); len(got) != 2 {
			t.Errorf("%s: max 2 gave %d pairs", name, len(got))
		}
	}
	bad := writePairsFile(t, "bad.jsonl", "{\"a\": \"x\", \"b\": \"y\"}\n{\"a\": 3}\n")
	if _, _, err := ReadPairs(bad, 0); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Errorf("bad line: %v, want an error naming bad.jsonl:2", err)
	}
}

func TestLoadPairsCache(t *testing.T) {
	tok, err := models.DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	path := writePairsFile(t, "p.jsonl.gz", pairsFixture)
	cache := t.TempDir()
	first, info, err := LoadPairs(path, 0, tok, cache, 2)
	if err != nil {
		t.Fatal(err)
	}
	if info.Cached || info.Lines != 3 || info.Pairs != 3 {
		t.Fatalf("first load: %+v", info)
	}
	if !reflect.DeepEqual(first[1].A, tok.IDs("speech")) {
		t.Errorf("pair 1 a = %v, want %v", first[1].A, tok.IDs("speech"))
	}
	second, info2, err := LoadPairs(path, 0, tok, cache, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !info2.Cached || info2.SHA256 != info.SHA256 || !reflect.DeepEqual(first, second) {
		t.Fatalf("second load: %+v, pairs equal %v", info2, reflect.DeepEqual(first, second))
	}
	// A different max is a different cache entry.
	if _, info3, _ := LoadPairs(path, 1, tok, cache, 1); info3.Cached || info3.Pairs != 1 {
		t.Fatalf("max 1: %+v", info3)
	}
}
