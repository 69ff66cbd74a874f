package ranker

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// LongPromptWords is the length, in words, from which a prompt's sentences
// are weighed (Focus). A shorter prompt is one request and is scored as it
// is; a long one tells a story around its request (background, what was
// tried), and every narrative word would otherwise count as much as the
// request's, so the story's subjects outrank the ask's. Below 50 words a
// prompt's first sentences are mostly the request's own setting ("I just
// signed up for X. Can you help me organise my inbox?"): weighed from 25
// words, 35 more of MetaTool's 2,000 prompts lost their skill.
const LongPromptWords = 50

// NarrativeWeight is what a narrative sentence's terms weigh in the
// lexical query, against 1 for a request sentence's. Not 0: the
// narrative's terms still count in the attainable score, so a request
// that shares one word with a skill among a story's many is, rightly, a
// weaker match (at 0, more prompts that need no skill were routed); and a
// story's subject ("our Flutter app") may name what the request is about.
// Between 0.25 and 0.4 the long dev prompts scored within a prompt or two.
const NarrativeWeight = 0.25

// Sentence is one sentence of a long prompt and the weight of its terms.
type Sentence struct {
	Text    string `json:"text"`
	Request bool   `json:"request"` // asks for something (or is the last sentence): weight 1
}

// Focus is a long prompt cut into sentences, each a request or narrative;
// nil for a short prompt, which is scored as it is.
type Focus []Sentence

// FocusOf cuts a prompt of LongPromptWords words or more into sentences
// and marks the ones that ask: a question, a request phrase ("please",
// "can you", "I need", "help me"), a sentence that does not open as a
// statement does (an imperative: "add a retry to the upload"), and the
// last sentence, where a story ends in its ask. The rest is narrative.
// Nil for a shorter prompt, or when every sentence asks.
func FocusOf(text string) Focus {
	if wordCount(text) < LongPromptWords {
		return nil
	}
	var f Focus
	narrative := false
	parts := sentences(text)
	for i, s := range parts {
		ask := i == len(parts)-1 || asks(s)
		narrative = narrative || !ask
		f = append(f, Sentence{Text: s, Request: ask})
	}
	if !narrative {
		return nil
	}
	return f
}

// Request is the text of the sentences that ask, for the dense channel:
// a sentence model's mean over a story's words is the story's subject.
func (f Focus) Request() string {
	var b strings.Builder
	for _, s := range f {
		if s.Request {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

// Narrated counts the narrative sentences, for `megagit why`.
func (f Focus) Narrated() int {
	n := 0
	for _, s := range f {
		if !s.Request {
			n++
		}
	}
	return n
}

// wordCount counts the runs of letters and digits in text.
func wordCount(text string) int {
	n := 0
	words(text, func(string) { n++ })
	return n
}

// sentences cuts text after '.', '!' or '?' followed by a space, and at
// line ends; empty pieces are dropped.
func sentences(text string) []string {
	var out []string
	start := 0
	cut := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			cut(i + 1)
		case '.', '!', '?':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' || text[i+1] == '\t' {
				cut(i + 1)
			}
		}
	}
	cut(len(text))
	return out
}

// requestPhrases mark a sentence that asks wherever they occur (as whole
// words, lowercased, apostrophes straight).
var requestPhrases = []string{
	"please", "can you", "could you", "would you", "will you", "help me",
	"i need", "i want", "i'd like", "i would like", "we need", "we want",
	"how do i", "how can i", "how do we", "how can we", "how to", "let's",
}

// statementOpeners are the words a statement opens with (pronouns,
// determiners, discourse and time words): a sentence that opens with
// none of them, asks nothing and is not a question is read as an
// imperative. A statement opening with a noun ("Kubernetes restarts the
// pod") is read as asking too: the error keeps the prompt as it was.
var statementOpeners = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`i i'm i've i'd i'll im ive we we're we've we'd we'll
		my our me us you you're your it it's its this that these those there there's
		they they're their he she his her the a an some someone somebody nobody
		everyone everybody everything nothing things one another other most all
		both each many few several no none not
		yesterday today tonight tomorrow last earlier recently lately before after
		since when while once until then now so but and also or still yet
		already again honestly basically anyway actually sorry thanks thank
		any as at in on for from with by to of about during over`) {
		statementOpeners[w] = true
	}
}

// asks reports whether a sentence asks for something.
func asks(s string) bool {
	if strings.HasSuffix(s, "?") {
		return true
	}
	low := " " + normalSpaces(strings.ToLower(strings.ReplaceAll(s, "’", "'"))) + " "
	for _, p := range requestPhrases {
		if strings.Contains(low, " "+p+" ") || strings.Contains(low, " "+p+",") {
			return true
		}
	}
	first := firstWord(low)
	return first != "" && !statementOpeners[first]
}

// normalSpaces turns every run of non-letters other than apostrophes,
// commas and digits into one space, so phrases match across punctuation.
func normalSpaces(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == ',' {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return b.String()
}

// firstWord is the first run of letters, digits and apostrophes of s.
func firstWord(s string) string {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	end := len(s)
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' {
			end = i
			break
		}
	}
	w := strings.TrimRight(s[:end], "'")
	if !utf8.ValidString(w) {
		return ""
	}
	return w
}

// weights is what each of terms weighs in a prompt of these sentences:
// the weight of its heaviest sentence (NarrativeWeight or 1); a term no
// sentence holds weighs 1.
func (f Focus) weights(terms []string) []float64 {
	weight := map[string]float64{}
	for _, s := range f {
		w := NarrativeWeight
		if s.Request {
			w = 1
		}
		for _, t := range Tokenize(s.Text) {
			if old, seen := weight[t]; !seen || w > old {
				weight[t] = w
			}
		}
	}
	out := make([]float64, len(terms))
	for i, t := range terms {
		out[i] = 1
		if w, ok := weight[t]; ok {
			out[i] = w
		}
	}
	return out
}
