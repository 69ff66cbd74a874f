// Command requestpairs writes second-stage training pairs for the built-in
// model (NOTEBOOK.md, "Request pairs for the built-in model", has the
// commands and what came of them): the first -base-n pairs of the first
// stage's set, then every request pair of -requests repeated -repeat times,
// as {"a", "b", "source"} JSONL.gz, what `megagit model train --pairs` reads
// (the trainer shuffles). It is not part of megagit.
//
//	requestpairs -base FILE.jsonl.gz -base-n N -requests DIR -repeat R -out FILE.jsonl.gz
//
// A request pair is {"a": how a user asks for something in everyday words,
// "b": a skill description in the field's own words}, or, in the
// everyday-*.jsonl files, {"a": a message about life outside software, "b":
// its topic in plain words}; all written for megagit (the *.jsonl files in
// -requests, read in name order). Every file is
// checked first: each line parses, has both texts, is not repeated, and its
// two texts share no word as the ranker indexes words (ranker.Tokenize:
// stemmed, without stopwords). Those pairs teach the model the everyday
// words for technical tasks, which no shared word can teach, and where
// everyday talk that needs no skill belongs.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/ranker"
)

// pair is one output line.
type pair struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Source string `json:"source"`
}

func main() {
	base := flag.String("base", "", "the first stage's pairs, JSONL[.gz]")
	baseN := flag.Int("base-n", 0, "how many of its pairs to keep, from the top (it is shuffled)")
	requests := flag.String("requests", "", "folder of request pair files (*.jsonl)")
	repeat := flag.Int("repeat", 1, "times each request pair is written")
	out := flag.String("out", "", "output file (.jsonl.gz)")
	check := flag.Bool("check", false, "only check the request files")
	flag.Parse()
	if *requests == "" || (*out == "" && !*check) || flag.NArg() > 0 || *repeat < 1 || *baseN < 0 {
		fmt.Fprintln(os.Stderr, "usage: requestpairs -base FILE -base-n N -requests DIR -repeat R -out FILE.jsonl.gz | -requests DIR -check")
		os.Exit(2)
	}
	if err := run(*base, *baseN, *requests, *repeat, *out, *check); err != nil {
		fmt.Fprintln(os.Stderr, "requestpairs:", err)
		os.Exit(1)
	}
}

func run(base string, baseN int, requests string, repeat int, out string, check bool) error {
	reqs, err := readRequests(requests)
	if err != nil {
		return err
	}
	if check {
		fmt.Printf("requests: %d pairs, %d descriptions\n", len(reqs), descriptions(reqs))
		return nil
	}
	var lines [][]byte
	if baseN > 0 {
		if lines, err = readBase(base, baseN); err != nil {
			return err
		}
	}
	if err := write(out, lines, reqs, repeat); err != nil {
		return err
	}
	fmt.Printf("base: %d pairs\nrequests: %d pairs (%d descriptions) x %d\ntotal: %d\n",
		len(lines), len(reqs), descriptions(reqs), repeat, len(lines)+repeat*len(reqs))
	return nil
}

// write writes the base lines, then reqs repeat times, to a temporary file
// beside out, renamed over out only once complete: a failed run leaves no
// half-written training set.
func write(out string, lines [][]byte, reqs []pair, repeat int) (err error) {
	f, err := os.CreateTemp(filepath.Dir(out), filepath.Base(out)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	zw := gzip.NewWriter(f)
	w := bufio.NewWriter(zw)
	for _, l := range lines {
		w.Write(l)
		w.WriteByte('\n')
	}
	for range repeat {
		for _, p := range reqs {
			b, _ := json.Marshal(p)
			w.Write(b)
			w.WriteByte('\n')
		}
	}
	if err := errors.Join(w.Flush(), zw.Close(), f.Close()); err != nil {
		return err
	}
	return os.Rename(f.Name(), out)
}

// readBase returns the first n lines of the pairs file at path, as they
// are, each checked to hold an "a" and a "b" text.
func readBase(path string, n int) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var lines [][]byte
	for len(lines) < n && sc.Scan() {
		var p struct{ A, B string }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil || strings.TrimSpace(p.A) == "" || strings.TrimSpace(p.B) == "" {
			return nil, fmt.Errorf("%s:%d: not a pair with \"a\" and \"b\" texts", path, len(lines)+1)
		}
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(lines) < n {
		return nil, fmt.Errorf("%s: %d pairs, fewer than -base-n %d", path, len(lines), n)
	}
	return lines, nil
}

// readRequests reads and checks every *.jsonl file of dir, in name order.
func readRequests(dir string) ([]pair, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.jsonl files", dir)
	}
	sort.Strings(files)
	seen := map[[2]string]string{}
	var all []pair
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			where := fmt.Sprintf("%s:%d", file, i+1)
			p, err := parseRequest(line)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			key := [2]string{strings.ToLower(p.A), strings.ToLower(p.B)}
			if first, ok := seen[key]; ok {
				return nil, fmt.Errorf("%s: the same pair as %s", where, first)
			}
			seen[key] = where
			all = append(all, p)
		}
	}
	return all, nil
}

// parseRequest reads one request line and checks it.
func parseRequest(line string) (pair, error) {
	var p struct {
		A *string `json:"a"`
		B *string `json:"b"`
	}
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return pair{}, fmt.Errorf("not a JSON object of \"a\" and \"b\": %v", err)
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"a", p.A}, {"b", p.B}} {
		if f.v == nil || strings.TrimSpace(*f.v) == "" {
			return pair{}, fmt.Errorf("field %q: missing or empty", f.name)
		}
	}
	if w := sharedWord(*p.A, *p.B); w != "" {
		return pair{}, fmt.Errorf("fields \"a\" and \"b\" share the word %q: a request pair must say it in other words", w)
	}
	return pair{A: strings.TrimSpace(*p.A), B: strings.TrimSpace(*p.B), Source: "request"}, nil
}

// sharedWord returns a term (as the ranker indexes it) that a and b both
// have, or "".
func sharedWord(a, b string) string {
	bt := map[string]bool{}
	for _, t := range ranker.Tokenize(b) {
		bt[t] = true
	}
	for _, t := range ranker.Tokenize(a) {
		if bt[t] {
			return t
		}
	}
	return ""
}

// descriptions counts the distinct b-texts.
func descriptions(ps []pair) int {
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p.B] = true
	}
	return len(seen)
}
