// Command typoset writes a copy of a benchmark's query file in which every
// prompt that needs a skill carries one-edit typos: one or two of its
// content words (five letters or more, not a stopword) each get one
// insertion, deletion, substitution or transposition of adjacent letters,
// the edits a typing hand makes. Prompts that need no skill (gold []) are
// copied unchanged, so a typo can never make a trap look like a match. It
// is deterministic: the same file and seed give the same output. It is not
// part of megagit.
//
//	typoset [-seed N] QUERIES.jsonl > TYPOS.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/kljensen/snowball/english"
	"github.com/megagit/megagit/ranker"
)

// minWord is the shortest word that gets a typo: shorter words are mostly
// function words and names a one-edit change makes unreadable.
const minWord = 5

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "typoset:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("typoset", flag.ContinueOnError)
	seed := fs.Uint64("seed", 29, "random seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: typoset [-seed N] QUERIES.jsonl")
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	rng := rand.New(rand.NewPCG(*seed, 0x7970))
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var q map[string]any
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return fmt.Errorf("%s: %w", fs.Arg(0), err)
		}
		if gold, _ := q["gold"].([]any); len(gold) > 0 {
			if text, ok := q["query"].(string); ok {
				q["query"] = Typo(text, rng)
			}
		}
		b, err := json.Marshal(q)
		if err != nil {
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return w.Flush()
}

// span is one word of a prompt: its byte offsets.
type span struct{ start, end int }

// Typo gives one or two of text's content words one edit each; a text
// without a content word comes back unchanged.
func Typo(text string, rng *rand.Rand) string {
	var words []span
	// The words as the product's tokenizer splits them.
	ranker.WordSpans(text, func(start, end int) {
		w := text[start:end]
		if len(w) >= minWord && ascii(w) && !english.IsStopWord(strings.ToLower(w)) {
			words = append(words, span{start, end})
		}
	})
	if len(words) == 0 {
		return text
	}
	n := 1
	if len(words) > 1 && rng.IntN(2) == 1 {
		n = 2
	}
	pick := rng.Perm(len(words))[:n]
	// Edit from the last word back, so earlier offsets stay valid.
	if n == 2 && pick[0] < pick[1] {
		pick[0], pick[1] = pick[1], pick[0]
	}
	for _, k := range pick {
		s := words[k]
		text = text[:s.start] + edit(text[s.start:s.end], rng) + text[s.end:]
	}
	return text
}

// ascii reports whether w is made of ASCII letters only.
func ascii(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// edit makes one insertion, deletion, substitution or transposition of
// adjacent (different) letters in w, an ASCII word; the result always
// differs from w.
func edit(w string, rng *rand.Rand) string {
	letter := func(not byte) byte {
		for {
			c := byte('a' + rng.IntN(26))
			if c != not|0x20 {
				return c
			}
		}
	}
	for {
		i := rng.IntN(len(w))
		switch rng.IntN(4) {
		case 0: // insertion before i
			return w[:i] + string(letter(0)) + w[i:]
		case 1: // deletion
			return w[:i] + w[i+1:]
		case 2: // substitution
			return w[:i] + string(letter(w[i])) + w[i+1:]
		default: // transposition of i and i+1
			if i+1 < len(w) && w[i]|0x20 != w[i+1]|0x20 {
				return w[:i] + string(w[i+1]) + string(w[i]) + w[i+2:]
			}
		}
	}
}
