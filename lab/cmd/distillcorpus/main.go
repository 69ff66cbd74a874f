// Command distillcorpus writes the texts a teacher embeds for the
// tokenlearn step of issue 39's distillation (lab/distill-39.md): package
// summaries, WordNet glosses and skill texts, one JSON object a line
// ({"text", "source", "ids"}), ids being the built-in model's token ids of
// the text as the static model pools them (staticmodel's tokeniser), so the
// student trains on exactly the ids it embeds at run time.
//
//	go run ./cmd/distillcorpus -pairs $PAIRS -packages 60000 -wordnet /usr/share/wordnet -glosses 60000 \
//	    -skills $BENCH/skills-dev,$BENCH/realskills-dev -out /tmp/corpus.jsonl.gz
//
// Skill texts are each skill's "name: description" (as routing embeds it)
// and its body cut into sections of at most -words words under their
// heading. Package summaries are the first -packages distinct summaries of
// the (already shuffled) pairs file. The output is gzipped without a name or
// time, so the same inputs give the same bytes.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/lab/internal/benchload"
	"github.com/megagit/megagit/models/staticmodel"
	"github.com/megagit/megagit/route/dense"
)

type line struct {
	Text   string  `json:"text"`
	Source string  `json:"source"`
	IDs    []int32 `json:"ids"`
}

func main() {
	pairs := flag.String("pairs", "", "package pairs file ({\"a\", \"b\"} JSONL, .gz allowed)")
	npk := flag.Int("packages", 100000, "distinct package summaries to take")
	wordnet := flag.String("wordnet", "", "WordNet 3.0 dict folder (data.noun, ...); empty: none")
	nwn := flag.Int("glosses", 0, "glosses to take, a seeded sample (0: all)")
	skills := flag.String("skills", "", "comma-separated benchmark folders whose skills/ texts to take")
	words := flag.Int("words", 48, "words per body passage")
	out := flag.String("out", "", "output .jsonl.gz")
	flag.Parse()
	if *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	tok, err := staticmodel.DefaultTokenizer()
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	w := bufio.NewWriter(gz)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	seen := map[string]bool{}
	counts := map[string]int{}
	emit := func(text, source string) {
		text = strings.Join(strings.Fields(text), " ")
		key := strings.ToLower(text)
		if text == "" || seen[key] {
			return
		}
		ids := tok.IDs(text)
		if len(ids) == 0 {
			return
		}
		seen[key] = true
		counts[source]++
		if err := enc.Encode(line{Text: text, Source: source, IDs: append([]int32(nil), ids...)}); err != nil {
			log.Fatal(err)
		}
	}
	for _, dir := range strings.Split(*skills, ",") {
		if dir == "" {
			continue
		}
		b := benchload.MustLoad(dir, "") // the queries are read, never used
		src := "skill:" + filepath.Base(dir)
		for _, d := range b.Docs {
			full, _ := dense.DocTexts(d)
			emit(full, src)
			for _, p := range passages(d.Body, *words) {
				emit(p, src)
			}
		}
	}
	if *wordnet != "" {
		var all []string
		for _, pos := range []string{"noun", "verb", "adj", "adv"} {
			if err := glosses(filepath.Join(*wordnet, "data."+pos), func(text, _ string) { all = append(all, text) }); err != nil {
				log.Fatal(err)
			}
		}
		if *nwn > 0 && *nwn < len(all) {
			rng := rand.New(rand.NewPCG(1, 2))
			rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
			all = all[:*nwn]
		}
		for _, g := range all {
			emit(g, "wordnet")
		}
	}
	if *pairs != "" {
		if err := summaries(*pairs, *npk, emit); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	for _, s := range sortedKeys(counts) {
		fmt.Fprintf(os.Stderr, "%s\t%d\n", s, counts[s])
	}
}

func sortedKeys(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// summaries emits the first n distinct package summaries of a pairs file.
func summaries(path string, n int, emit func(text, source string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		r = gz
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	taken := 0
	for sc.Scan() && taken < n {
		var p struct{ B string }
		if json.Unmarshal(sc.Bytes(), &p) != nil || p.B == "" {
			continue
		}
		emit(p.B, "package")
		taken++
	}
	return sc.Err()
}

// glosses emits, for each synset of a WordNet data file, "lemma, lemma:
// gloss" (at most three lemmas, the gloss without its quoted examples).
func glosses(path string, emit func(text, source string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, " ") {
			continue // the licence header
		}
		bar := strings.Index(l, " | ")
		if bar < 0 {
			continue
		}
		fields := strings.Fields(l[:bar])
		if len(fields) < 6 {
			continue
		}
		var cnt int
		if _, err := fmt.Sscanf(fields[3], "%x", &cnt); err != nil {
			continue
		}
		var lemmas []string
		for i := 0; i < cnt && 4+2*i < len(fields) && len(lemmas) < 3; i++ {
			w := fields[4+2*i]
			if k := strings.IndexByte(w, '('); k > 0 {
				w = w[:k] // adjective markers: (a), (p), (ip)
			}
			lemmas = append(lemmas, strings.ReplaceAll(w, "_", " "))
		}
		gloss := l[bar+3:]
		if k := strings.Index(gloss, "; \""); k >= 0 {
			gloss = gloss[:k]
		} else if strings.HasPrefix(gloss, "\"") {
			continue
		}
		gloss = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(gloss), ";"))
		if gloss == "" || len(lemmas) == 0 {
			continue
		}
		emit(strings.Join(lemmas, ", ")+": "+gloss, "wordnet")
	}
	return sc.Err()
}

// passages splits a Markdown body into sections under their headings, each
// cut into windows of at most words words, the heading first; code fences
// are left out (passageprobe's cut).
func passages(body string, words int) []string {
	var out []string
	heading := ""
	var cur []string
	flush := func() {
		for i := 0; i < len(cur); i += words {
			j := min(i+words, len(cur))
			out = append(out, strings.TrimSpace(heading+" "+strings.Join(cur[i:j], " ")))
		}
		cur = nil
	}
	fence := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		if strings.HasPrefix(t, "#") {
			flush()
			heading = strings.TrimSpace(strings.TrimLeft(t, "#"))
			continue
		}
		cur = append(cur, strings.Fields(t)...)
	}
	flush()
	return out
}
