// Command trainpairs is scripts/build-training-pairs.sh's helper: it writes
// the training pairs of the built-in model ({"a", "b", "source"} JSONL.gz,
// what `megagit model train --pairs` reads) from a package pairs file,
// WordNet's data files and man pages' NAME sections, deduplicated and
// shuffled with a fixed seed, and prints the count of each source. It is not
// part of megagit.
//
//	trainpairs -packages FILE -wordnet DIR -man-list FILE -out FILE.jsonl.gz [-seed N]
//
// -man-list names one gzip'd roff man page per line ("-" for stdin); an
// empty -wordnet or -man-list skips that source.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pair is one output line.
type pair struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Source string `json:"source"`
}

func main() {
	packages := flag.String("packages", "", "package pairs file, JSONL[.gz] of {\"a\", \"b\", \"source\"}")
	wordnet := flag.String("wordnet", "", "WordNet 3.0 dictionary folder (data.noun, data.verb, ...)")
	manList := flag.String("man-list", "", "file listing man pages (gzip'd roff), one per line; - for stdin")
	out := flag.String("out", "", "output file (.jsonl.gz)")
	seed := flag.Uint64("seed", 1, "shuffle seed")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: trainpairs -packages FILE -wordnet DIR -man-list FILE -out FILE.jsonl.gz [-seed N]")
		os.Exit(2)
	}
	if err := run(*packages, *wordnet, *manList, *out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "trainpairs:", err)
		os.Exit(1)
	}
}

func run(packages, wordnet, manList, out string, seed uint64) error {
	var all []pair
	if packages != "" {
		ps, err := readPackages(packages)
		if err != nil {
			return err
		}
		all = append(all, ps...)
	}
	if wordnet != "" {
		ps, err := readWordNet(wordnet)
		if err != nil {
			return err
		}
		all = append(all, ps...)
	}
	if manList != "" {
		files, err := readList(manList)
		if err != nil {
			return err
		}
		ps, skipped, err := readManPages(files)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "trainpairs: man pages: %d files, %d without a NAME line (links, other formats)\n", len(files), skipped)
		all = append(all, ps...)
	}
	read := counts(all)
	kept := dedupe(all)
	r := rand.New(rand.NewPCG(seed, 0x7a1))
	r.Shuffle(len(kept), func(i, j int) { kept[i], kept[j] = kept[j], kept[i] })
	if err := write(out, kept); err != nil {
		return err
	}
	final := counts(kept)
	srcs := make([]string, 0, len(read))
	for s := range read {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	fmt.Printf("%-14s %9s %9s\n", "source", "read", "kept")
	for _, s := range srcs {
		fmt.Printf("%-14s %9d %9d\n", s, read[s], final[s])
	}
	fmt.Printf("%-14s %9d %9d\n", "total", len(all), len(kept))
	return nil
}

func counts(ps []pair) map[string]int {
	c := map[string]int{}
	for _, p := range ps {
		c[p.Source]++
	}
	return c
}

// dedupe keeps the first pair of each (a, b), compared case-insensitively
// and with runs of spaces collapsed, in input order.
func dedupe(ps []pair) []pair {
	seen := make(map[string]bool, len(ps))
	out := ps[:0:0]
	for _, p := range ps {
		k := strings.ToLower(p.A) + "\x00" + strings.ToLower(p.B)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out
}

// clean collapses white space and trims; it returns "" for text that is not
// valid UTF-8.
func clean(s string) string {
	if !utf8.ValidString(s) {
		return ""
	}
	return strings.Join(strings.Fields(s), " ")
}

func write(path string, ps []pair) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	zw := gzip.NewWriter(bw) // no name, no mtime: the bytes depend on the pairs only
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	for _, p := range ps {
		if err := enc.Encode(p); err != nil {
			f.Close()
			return err
		}
	}
	if err := errors.Join(zw.Close(), bw.Flush(), f.Close()); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func openMaybeGzip(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, nil
	}
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{zr, f}, nil
}

// readPackages reads the package pairs, keeping each line's source (default
// "packages").
func readPackages(path string) ([]pair, error) {
	rc, err := openMaybeGzip(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 0, 1<<16), 16<<20)
	var out []pair
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		p.A, p.B = clean(p.A), clean(p.B)
		if p.A == "" || p.B == "" {
			continue
		}
		if p.Source == "" {
			p.Source = "packages"
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// WordNet: at most this many lemmas of a synset give gloss pairs, and at
// most synLemmas give synonym pairs (all pairs among them).
const (
	glossLemmas = 3
	synLemmas   = 4
)

var adjMarker = regexp.MustCompile(`\((a|p|ip)\)$`)

// readWordNet reads data.{adj,adv,noun,verb}: for each synset, synonym
// pairs among its first lemmas ("wordnet-syn") and lemma ↔ definition
// pairs ("wordnet-gloss"; the gloss without its quoted examples).
func readWordNet(dir string) ([]pair, error) {
	var out []pair
	for _, pos := range []string{"adj", "adv", "noun", "verb"} {
		path := filepath.Join(dir, "data."+pos)
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
		for line := 1; sc.Scan(); line++ {
			lemmas, def, ok, err := parseSynset(sc.Text())
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			if !ok {
				continue
			}
			for i := 0; i < len(lemmas) && i < synLemmas; i++ {
				for j := i + 1; j < len(lemmas) && j < synLemmas; j++ {
					out = append(out, pair{A: lemmas[i], B: lemmas[j], Source: "wordnet-syn"})
				}
			}
			if def != "" {
				for i := 0; i < len(lemmas) && i < glossLemmas; i++ {
					out = append(out, pair{A: lemmas[i], B: def, Source: "wordnet-gloss"})
				}
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return out, nil
}

// parseSynset reads one line of a WordNet data file: "offset lex_filenum
// ss_type w_cnt word lex_id [word lex_id ...] p_cnt ... | gloss". ok is
// false for the licence header (lines starting with spaces). Lemmas are
// distinct (case-insensitively), with "_" as space and the adjective
// position marker dropped; def is the gloss up to its first quoted example.
func parseSynset(line string) (lemmas []string, def string, ok bool, err error) {
	if line == "" || line[0] == ' ' {
		return nil, "", false, nil
	}
	head, gloss, _ := strings.Cut(line, " | ")
	f := strings.Fields(head)
	if len(f) < 4 {
		return nil, "", false, errors.New("short synset line")
	}
	n, err := strconv.ParseUint(f[3], 16, 8)
	if err != nil || len(f) < 4+2*int(n) {
		return nil, "", false, fmt.Errorf("bad word count %q", f[3])
	}
	seen := map[string]bool{}
	for i := 0; i < int(n); i++ {
		w := adjMarker.ReplaceAllString(f[4+2*i], "")
		w = clean(strings.ReplaceAll(w, "_", " "))
		if w == "" || seen[strings.ToLower(w)] {
			continue
		}
		seen[strings.ToLower(w)] = true
		lemmas = append(lemmas, w)
	}
	def = gloss
	if i := strings.Index(def, `"`); i >= 0 {
		def = def[:i]
	}
	def = strings.TrimRight(clean(def), " ;:,")
	return lemmas, def, len(lemmas) > 0, nil
}

func readList(path string) ([]string, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out, sc.Err()
}

// readManPages reads each page's NAME section: "names ↔ what it does"
// ("man"). Pages without one (.so links, other formats) are counted in
// skipped.
func readManPages(files []string) (out []pair, skipped int, err error) {
	for _, path := range files {
		rc, err := openMaybeGzip(path)
		if err != nil {
			return nil, 0, err
		}
		src, err := io.ReadAll(io.LimitReader(rc, 8<<20))
		rc.Close()
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", path, err)
		}
		names, what, ok := parseManName(string(src))
		if !ok {
			skipped++
			continue
		}
		out = append(out, pair{A: names, B: what, Source: "man"})
	}
	return out, skipped, nil
}

var (
	nameHeading = regexp.MustCompile(`^\.S[Hh]\s+"?(NAME|Name)"?\s*$`)
	sectionHead = regexp.MustCompile(`^\.(SH|Sh|SS|Ss)(\s|$)`)
	nameDash    = regexp.MustCompile(`\s+-+\s+|\s+-+$`)
	// fontMacros print their arguments; every other request in the NAME
	// section (.PP, .br, .IX, .ad, ...) prints nothing that matters.
	fontMacros = map[string]bool{"B": true, "I": true, "BR": true, "RB": true, "IR": true, "RI": true,
		"BI": true, "IB": true, "SM": true, "SB": true, "Nm": true, "Nd": true}
	escapes = strings.NewReplacer(
		`\-`, "-", `\(em`, " - ", `\(en`, " - ", `\[em]`, " - ", `\[en]`, " - ", `\(aq`, "'", `\(dq`, `"`,
		`\(lq`, `"`, `\(rq`, `"`, `\(oq`, "'", `\(cq`, "'", `\e`, `\`, `\&`, "", `\,`, "", `\/`, "", `\^`, "",
		`\|`, "", `\:`, "", `\ `, " ", `\~`, " ", `\0`, " ", `\c`, "")
	fontEscape   = regexp.MustCompile(`\\f(\[[^\]]*\]|\(..|.)`)
	stringEscape = regexp.MustCompile(`\\\*(\[[^\]]*\]|\(..|.)`)
	otherEscape  = regexp.MustCompile(`\\[a-zA-Z(\[][^ ]*`)
)

// parseManName finds a roff page's NAME section (man or mdoc macros) and
// splits it at the first dash into the names and what they do, e.g.
// "open, openat, creat" and "open and possibly create a file".
func parseManName(src string) (names, what string, ok bool) {
	lines := strings.Split(src, "\n")
	start := -1
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if strings.HasPrefix(l, ".so ") && start < 0 {
			return "", "", false
		}
		if nameHeading.MatchString(l) {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return "", "", false
	}
	var text, nm, nd []string
	for _, l := range lines[start:] {
		l = strings.TrimRight(l, "\r")
		if sectionHead.MatchString(l) {
			break
		}
		if strings.HasPrefix(l, `.\"`) || strings.HasPrefix(l, `'\"`) || strings.HasPrefix(l, `\"`) {
			continue
		}
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			macro, args, _ := strings.Cut(strings.TrimSpace(l[1:]), " ")
			if !fontMacros[macro] {
				continue
			}
			args = strings.ReplaceAll(args, `"`, "")
			switch macro {
			case "Nm":
				nm = append(nm, args)
				continue
			case "Nd":
				nd = append(nd, args)
				continue
			}
			l = args
		}
		text = append(text, l)
	}
	var line string
	if len(nd) > 0 {
		line = strings.Join(nm, ", ") + " - " + strings.Join(nd, " ")
	} else {
		line = strings.Join(text, " ")
	}
	line = unescape(line)
	loc := nameDash.FindStringIndex(line)
	if loc == nil {
		return "", "", false
	}
	names = strings.Trim(clean(line[:loc[0]]), " ,")
	what = strings.TrimRight(clean(line[loc[1]:]), " .")
	if names == "" || what == "" || len(names) > 300 || len(what) > 400 {
		return "", "", false
	}
	return names, what, true
}

func unescape(s string) string {
	s = fontEscape.ReplaceAllString(s, "")
	s = stringEscape.ReplaceAllString(s, "")
	s = escapes.Replace(s)
	s = otherEscape.ReplaceAllString(s, "")
	return clean(s)
}
