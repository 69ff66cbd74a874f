// Command dupcut measures the cut `megagit lint` reports two skills as
// duplicates at: it embeds every skill of the benchmarks named (as the
// router embeds them: "name: description", the built-in model unless
// -model names another built-in one), adds the planted duplicates of
// data/dups/planted.jsonl (a real skill's description rewritten in other
// words, under another name), and prints the distribution of the pairwise
// cosines and term-set Jaccards (ranker.Duplicates' two measures) of the
// distinct skills, each planted pair's, and for each candidate cut how
// many planted pairs reach it and how many pairs of distinct skills do,
// with the distinct pairs nearest the cut to read by eye.
//
//	go run ./cmd/dupcut -bench $BENCH/realskills-dev,$BENCH/skills-dev -planted data/dups/planted.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/lab/internal/benchload"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route/dense"
)

// plant is one planted duplicate: Of's description rewritten.
type plant struct {
	Bench       string `json:"bench"`
	Of          string `json:"of"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// pair is one compared pair: its measures and whether it is a planted one.
type pair struct {
	a, b    string
	cos     float64
	jac     float64
	planted bool
}

func main() {
	benches := flag.String("bench", "", "comma-separated benchmark folders (DIR/skills)")
	plantedFile := flag.String("planted", "data/dups/planted.jsonl", "the planted duplicates")
	modelID := flag.String("model", models.BuiltinID, "a built-in model's id")
	near := flag.Int("near", 12, "distinct pairs to list nearest each cut")
	flag.Parse()
	if *benches == "" {
		fmt.Fprintln(os.Stderr, "dupcut: -bench is required")
		os.Exit(2)
	}
	plants, err := readPlants(*plantedFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dupcut:", err)
		os.Exit(1)
	}
	emb, err := models.BuiltinModel(*modelID)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dupcut:", err)
		os.Exit(1)
	}
	var all []pair
	for _, dir := range strings.Split(*benches, ",") {
		ps, err := measure(dir, plants, emb)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dupcut:", err)
			os.Exit(1)
		}
		all = append(all, ps...)
	}
	report(all, *near)
}

func readPlants(file string) ([]plant, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []plant
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var p plant
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, line, err)
		}
		out = append(out, p)
	}
	return out, sc.Err()
}

// measure compares every pair of dir's skills and its planted duplicates.
func measure(dir string, plants []plant, emb models.Embedder) ([]pair, error) {
	docs := benchload.MustLoad(dir, "").Docs
	planted := map[string]string{} // planted name -> its original
	for _, p := range plants {
		if p.Bench != filepath.Base(dir) {
			continue
		}
		found := -1
		for j := range docs {
			if docs[j].ID == p.Of {
				found = j
			}
		}
		if found < 0 {
			return nil, fmt.Errorf("%s: planted %s: no skill %q", dir, p.Name, p.Of)
		}
		d := docs[found]
		d.ID, d.Description = p.Name, p.Description
		docs = append(docs, d)
		planted[p.Name] = p.Of
	}
	ch, err := dense.New(emb, models.StaticProfile, docs, nil, nil)
	if err != nil {
		return nil, err
	}
	var out []pair
	terms := make([][]string, len(docs))
	for i, d := range docs {
		terms[i] = ranker.DupTerms(d)
	}
	for a := range docs {
		for b := a + 1; b < len(docs); b++ {
			x, y := docs[a].ID, docs[b].ID
			out = append(out, pair{a: x, b: y, cos: ch.Vecs.Cosine(a, b), jac: ranker.Jaccard(terms[a], terms[b]),
				planted: planted[x] == y || planted[y] == x})
		}
	}
	fmt.Printf("%s: %d skills (%d planted), %d pairs\n", filepath.Base(dir), len(docs), len(planted), len(out))
	return out, nil
}

func report(all []pair, near int) {
	for _, m := range []struct {
		name string
		of   func(pair) float64
		cuts []float64
	}{
		{"cosine", func(p pair) float64 { return p.cos }, steps(0.70, 0.90, 0.01)},
		{"jaccard", func(p pair) float64 { return p.jac }, steps(0.60, 1.00, 0.05)},
	} {
		var distinct, planted []float64
		for _, p := range all {
			if p.planted {
				planted = append(planted, m.of(p))
			} else {
				distinct = append(distinct, m.of(p))
			}
		}
		sort.Float64s(distinct)
		sort.Float64s(planted)
		fmt.Printf("\n%s of %d distinct pairs: p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f\n", m.name, len(distinct),
			q(distinct, 0.5), q(distinct, 0.9), q(distinct, 0.99), q(distinct, 0.999), q(distinct, 1))
		fmt.Printf("%s of the %d planted pairs:", m.name, len(planted))
		for _, v := range planted {
			fmt.Printf(" %.3f", v)
		}
		fmt.Println()
		fmt.Printf("%-6s %-14s %s\n", "cut", "planted found", "distinct pairs at or above")
		for _, c := range m.cuts {
			found, over := 0, 0
			for _, v := range planted {
				if v >= c {
					found++
				}
			}
			for _, v := range distinct {
				if v >= c {
					over++
				}
			}
			fmt.Printf("%-6.2f %2d/%-11d %d\n", c, found, len(planted), over)
		}
		sorted := append([]pair(nil), all...)
		sort.SliceStable(sorted, func(i, j int) bool { return m.of(sorted[i]) > m.of(sorted[j]) })
		fmt.Printf("the %d highest pairs by %s:\n", near+len(planted), m.name)
		for _, p := range sorted[:min(len(sorted), near+len(planted))] {
			mark := ""
			if p.planted {
				mark = " (planted)"
			}
			fmt.Printf("  %.3f  cos %.3f jac %.3f  %s ~ %s%s\n", m.of(p), p.cos, p.jac, p.a, p.b, mark)
		}
	}
}

// q is the p-quantile of sorted values (nearest rank).
func q(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted)-1) + 0.5)
	return sorted[min(i, len(sorted)-1)]
}

func steps(lo, hi, by float64) []float64 {
	var out []float64
	for v := lo; v <= hi+1e-9; v += by {
		out = append(out, v)
	}
	return out
}
