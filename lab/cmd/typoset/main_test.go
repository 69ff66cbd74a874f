package main

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Every typo is one edit of one or two content words; the rest of the
// prompt, and prompts without a content word, are untouched.
func TestTypo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		in := "deploy the kubernetes cluster with terraform, it is ok"
		out := Typo(in, rng)
		a, b := strings.Fields(in), strings.Fields(out)
		if len(a) != len(b) {
			t.Fatalf("%q -> %q: words lost", in, out)
		}
		changed := 0
		for i := range a {
			if a[i] == b[i] {
				continue
			}
			changed++
			if len(a[i]) < minWord || a[i] == "the" {
				t.Fatalf("%q -> %q: a short word changed", in, out)
			}
			if d := dl(strings.TrimRight(a[i], ","), strings.TrimRight(b[i], ",")); d != 1 {
				t.Fatalf("%q -> %q: %d edits", a[i], b[i], d)
			}
		}
		if changed < 1 || changed > 2 {
			t.Fatalf("%q -> %q: %d words changed", in, out, changed)
		}
	}
	if got := Typo("fix it now", rng); got != "fix it now" {
		t.Errorf("no content word: %q", got)
	}
}

// The same seed gives the same typos.
func TestTypoDeterministic(t *testing.T) {
	in := "summarise the quarterly revenue spreadsheet for the board"
	a := Typo(in, rand.New(rand.NewPCG(7, 0x7970)))
	b := Typo(in, rand.New(rand.NewPCG(7, 0x7970)))
	if a != b {
		t.Errorf("%q != %q", a, b)
	}
}

// dl is the optimal string alignment distance (Damerau–Levenshtein with
// adjacent transpositions).
func dl(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+c)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
