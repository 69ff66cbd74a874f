// Command longset builds a dev set of long prompts from a queries file:
// each prompt is wrapped, deterministically (a seeded RNG), in the
// narrative a user writes around a request — background, what was tried,
// sometimes a closing remark after the ask — to 70 to 120 words. The
// narrative comes from a fixed list of generic developer sentences and,
// for some prompts, from another prompt of the file told as past work
// ("Earlier this week I had to ..."), so the narrative can name another
// skill's subject. Each line keeps its kind, gold and split; its id gets
// "-long". A prompt that needs no skill must stay unrouted when wrapped.
//
//	go run ./cmd/longset -in dev.jsonl -out long-dev.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
)

// background is what users tell before their request: generic, about no
// skill's subject.
var background = []string{
	"I've been on this codebase for two weeks and the team is small.",
	"Yesterday we had an outage and everyone is tired.",
	"My manager asked me to look into this before the end of the sprint.",
	"I'm not an expert here, so bear with me.",
	"We are a team of four and nobody owns this part anymore.",
	"The person who wrote most of this left the company last month.",
	"I spent most of the morning reading old tickets and chat threads.",
	"Things have been hectic since the reorganisation in the spring.",
	"We ship every Thursday and the next cut is in two days.",
	"Honestly I am a bit lost and the documentation is thin.",
	"I tried a couple of things from memory but nothing stuck.",
	"A colleague suggested I ask here before I go further.",
	"It is late on a Friday and I would like to wrap this up.",
	"This is for a side project I maintain on weekends.",
	"Our stakeholders keep changing their minds about the scope.",
	"I already searched around for a while without much luck.",
	"The last attempt took most of the afternoon and went nowhere.",
	"We are moving fast and cutting corners, which I regret a little.",
	"My laptop is old and everything takes forever to run.",
	"I had a long call with the client this morning about priorities.",
	"The standup today was mostly about this, again.",
	"I'm coming back to this after a two week holiday.",
	"Some context first, since it matters a little.",
	"Our lead is on leave, so I am making the call this time.",
	"We inherited this from another team without much of a handover.",
	"Nobody remembers why it was set up the way it is.",
	"I want to do it properly this time instead of patching it again.",
	"Budget is tight this quarter, so I cannot buy anything new.",
}

// closings are what some users write after their request.
var closings = []string{
	"Thanks a lot in advance, it has been a long week.",
	"Any pointers are appreciated, I am going in circles.",
	"Sorry for the wall of text.",
	"I'll owe you a coffee for this one.",
}

// pastWork introduces another prompt of the file as something done before.
var pastWork = []string{
	"Earlier this week I had to %s, and that went fine.",
	"Last sprint someone asked me to %s, which is done now.",
	"Before this I was busy with a request to %s.",
}

func main() {
	in := flag.String("in", "", "queries file (jsonl), e.g. a benchmark's dev half")
	out := flag.String("out", "", "where to write the long prompts (jsonl; default stdout)")
	seed := flag.Uint64("seed", 29, "the RNG's seed")
	flag.Parse()
	if *in == "" {
		flag.Usage()
		os.Exit(2)
	}
	qs, err := read(*in)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var w io.Writer = os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	if err := write(w, wrapAll(qs, *seed)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// read is every line of a queries file, its fields kept as they are.
func read(path string) ([]map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q map[string]any
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}

func write(w io.Writer, qs []map[string]any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			return err
		}
	}
	return nil
}

// wrapAll wraps every prompt; the same input and seed give the same file.
func wrapAll(qs []map[string]any, seed uint64) []map[string]any {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	// Other prompts that need a skill can be told as past work.
	var asks []string
	for _, q := range qs {
		if g, _ := q["gold"].([]any); len(g) > 0 {
			asks = append(asks, q["query"].(string))
		}
	}
	out := make([]map[string]any, 0, len(qs))
	for _, q := range qs {
		c := make(map[string]any, len(q))
		for k, v := range q {
			c[k] = v
		}
		c["id"] = fmt.Sprint(q["id"]) + "-long"
		c["query"] = wrap(rng, q["query"].(string), asks)
		out = append(out, c)
	}
	return out
}

// wrap puts the ask after 70 to 120 words of narrative: background
// sentences, for one prompt in three another prompt told as past work, and
// for one in four a closing remark after the ask.
func wrap(rng *rand.Rand, ask string, asks []string) string {
	ask = sentence(ask)
	var closing string
	if rng.IntN(4) == 0 {
		closing = closings[rng.IntN(len(closings))]
	}
	var past string
	if len(asks) > 1 && rng.IntN(3) == 0 {
		other := ask
		for sentence(other) == ask {
			other = asks[rng.IntN(len(asks))]
		}
		past = fmt.Sprintf(pastWork[rng.IntN(len(pastWork))], lowerFirst(strings.TrimRight(strings.TrimSpace(other), ".?!")))
	}
	target := 70 + rng.IntN(31) // words in all, before the last sentence is added
	perm := rng.Perm(len(background))
	var narr []string
	n := count(ask) + count(closing) + count(past)
	for _, i := range perm {
		if n >= target {
			break
		}
		s := background[i]
		if n+count(s) > 120 {
			continue
		}
		narr = append(narr, s)
		n += count(s)
	}
	if past != "" {
		at := rng.IntN(len(narr) + 1)
		narr = append(narr[:at], append([]string{past}, narr[at:]...)...)
	}
	parts := append(narr, ask)
	if closing != "" {
		parts = append(parts, closing)
	}
	return strings.Join(parts, " ")
}

// sentence ends s with a full stop unless it ends a sentence already.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".?!") {
		return s
	}
	return s + "."
}

func lowerFirst(s string) string {
	if s == "" || strings.HasPrefix(s, "I ") || strings.HasPrefix(s, "I'") {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func count(s string) int { return len(strings.Fields(s)) }
