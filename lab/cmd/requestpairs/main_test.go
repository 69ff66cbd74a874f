package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The request pairs in the repository are what NOTEBOOK.md's candidates
// were trained on: each must pass the checks, or a rebuild stops.
func TestShippedRequestsPass(t *testing.T) {
	ps, err := readRequests(filepath.Join("..", "..", "data", "requests"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3982 || descriptions(ps) != 1327 {
		t.Errorf("%d pairs of %d descriptions; NOTEBOOK.md counts 3,982 of 1,327", len(ps), descriptions(ps))
	}
}

func TestBadRequestLinesAreNamed(t *testing.T) {
	good := `{"a": "my pictures take ages to show up", "b": "image-optimizer: compress and resize photos for the web"}`
	for _, tc := range []struct{ name, line, want string }{
		{"not JSON", `{"a": "x",`, "not a JSON object"},
		{"missing b", `{"a": "shrink my pictures"}`, `field "b": missing or empty`},
		{"empty a", `{"a": "  ", "b": "image-optimizer: compress photos"}`, `field "a": missing or empty`},
		{"unknown field", `{"a": "shrink my pictures", "b": "compress photos", "c": 1}`, "not a JSON object"},
		{"shared word, another form", `{"a": "resizing my photo", "b": "image-optimizer: compress and resize photos"}`, `share the word "resiz"`},
		{"repeated", good, "the same pair as"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			body := good + "\n" + tc.line + "\n"
			if err := os.WriteFile(filepath.Join(dir, "web.jsonl"), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readRequests(dir)
			if err == nil {
				t.Fatalf("no error for %s", tc.line)
			}
			if !strings.Contains(err.Error(), "web.jsonl:2: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to name web.jsonl:2 and say %q", err, tc.want)
			}
		})
	}
}

func TestWritesBaseThenRepeatedRequests(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.jsonl.gz")
	writeGz(t, base, `{"a":"p1","b":"one"}`+"\n"+`{"a":"p2","b":"two"}`+"\n"+`{"a":"p3","b":"three"}`+"\n")
	reqs := filepath.Join(dir, "requests")
	os.Mkdir(reqs, 0o755)
	os.WriteFile(filepath.Join(reqs, "b.jsonl"), []byte(`{"a":"my site feels sluggish","b":"web-perf: measure page load speed"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(reqs, "a.jsonl"), []byte(`{"a":"the numbers look off","b":"data-audit: validate dataset values"}`+"\n"), 0o644)
	out := filepath.Join(dir, "out.jsonl.gz")
	if err := run(base, 2, reqs, 3, out, false); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		var p pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		got = append(got, p.A+"|"+p.Source)
	}
	want := []string{"p1|", "p2|"}
	for range 3 {
		want = append(want, "the numbers look off|request", "my site feels sluggish|request")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("wrote\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	before, _ := os.ReadFile(out)
	if err := run(base, 5, reqs, 1, out, false); err == nil || !strings.Contains(err.Error(), "fewer than -base-n 5") {
		t.Errorf("base-n past the end: %v", err)
	}
	torn := filepath.Join(dir, "torn.jsonl.gz")
	writeGz(t, torn, `{"a":"p1","b":"one"}`+"\n"+`{"a":"p2",`+"\n")
	if err := run(torn, 2, reqs, 1, out, false); err == nil || !strings.Contains(err.Error(), "torn.jsonl.gz:2: ") {
		t.Errorf("a torn base line: %v, want an error naming torn.jsonl.gz:2", err)
	}
	// A failed run leaves the last good output as it was, and no
	// temporary file beside it.
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Error("a failed run changed the output file")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func writeGz(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(text))
	if err := errors.Join(zw.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
}
