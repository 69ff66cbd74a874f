// Command tokfreq counts how often each token of the built-in model's
// vocabulary occurs in a pairs file ({"a": ..., "b": ...} JSONL, optionally
// gzipped), tokenised as the static model tokenises a text (specials out).
// It writes one count per line, line i for token i: the frequencies
// lab/scripts/distill-static.py weighs a distilled table with (lab/distill.md).
//
//	go run ./cmd/tokfreq -pairs ../../shared/data/package-pairs.jsonl.gz -out /tmp/tokfreq.txt
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/megagit/megagit/models/staticmodel"
)

func main() {
	pairs := flag.String("pairs", "", "pairs file (JSONL, .gz allowed)")
	out := flag.String("out", "", "output file: one count per token id")
	max := flag.Int("n", 0, "read at most this many pairs (0: all)")
	flag.Parse()
	if *pairs == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	tok, err := staticmodel.DefaultTokenizer()
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Open(*pairs)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(*pairs, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			log.Fatal(err)
		}
		r = gz
	}
	counts := make([]int64, tok.VocabSize())
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		var p struct{ A, B string }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			continue
		}
		for _, s := range []string{p.A, p.B} {
			for _, id := range tok.Encode(s) {
				if !tok.IsSpecial(id) {
					counts[id]++
				}
			}
		}
		n++
		if *max > 0 && n >= *max {
			break
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	w, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	bw := bufio.NewWriter(w)
	for _, c := range counts {
		fmt.Fprintln(bw, c)
	}
	if err := bw.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d pairs, %d tokens counted", n, len(counts))
}
