// Command devsets builds the development benchmark for abstention as the
// catalog grows (issue #14): a hand-written benchmark's skills padded with
// distractor skills to larger catalogs, or cut to smaller ones, next to
// query files that add the prompts in data/devsets (null prompts and pure
// paraphrases). It is not part of megagit.
//
//	devsets gen -bench DIR -tools DIR -pairs FILE -out DIR [-prompts DIR] [-sizes 10,20,35,50,100,156,500,2000,10000]
//	devsets check [-prompts DIR] [-bench DIR]
//
// gen is deterministic: the same inputs give byte-identical folders.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `usage:
  devsets gen -bench DIR -tools DIR -pairs FILE -out DIR [-prompts DIR] [-sizes N,N,...]
  devsets check [-prompts DIR] [-bench DIR]

gen writes one benchmark folder per size, OUT/skills-N, each holding
skills/<id>/SKILL.md (the benchmark's own skills, then distractors up to N;
below the benchmark's size, the first N of its skills in the order of their
ids' sha256, so a smaller catalog is part of every larger one) and query
files, without the queries and prompts whose gold skills were cut:
  queries.jsonl                    the benchmark's queries, unchanged
  null.jsonl, null-{dev,test}.jsonl            the prompts of PROMPTS/null.jsonl
  paraphrase.jsonl, paraphrase-{dev,test}.jsonl  the prompts of PROMPTS/paraphrase.jsonl
  all.jsonl, all-{dev,test}.jsonl  queries.jsonl plus the new prompts (all, or
                                   one split); their kinds get a "new_" prefix
  queries-{dev,test}.jsonl         queries.jsonl split in two as the prompts are
  fold-{dev,test}.jsonl            one half of queries.jsonl plus the new prompts
                                   of the same split: fit a gate on one fold,
                                   measure it on the other
Measure one with: megagit eval OUT/skills-N --queries OUT/skills-N/null-dev.jsonl

  -bench DIR    a benchmark folder: DIR/skills/<id>/SKILL.md and DIR/queries.jsonl
  -tools DIR    a folder of tool skills (DIR/<id>/SKILL.md), the first distractors
  -pairs FILE   gzipped JSONL {"a": package name, "b": summary, "source"}; its
                packages, in file order, are the next distractors
  -prompts DIR  folder with null.jsonl and paraphrase.jsonl (default data/devsets; run from lab/)
  -sizes LIST   catalog sizes (default 10,20,35,50,100,156,500,2000,10000)

check validates the prompt files (format, unique ids, kinds, splits) and, with
-bench, that gold ids exist, ids do not reuse the benchmark's, and no
paraphrase shares a token (ranker.Tokenize) with its gold skill's id and
description.
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "devsets:", err)
		os.Exit(1)
	}
}

func run(args []string, out, errOut io.Writer) error {
	if len(args) < 1 {
		fmt.Fprint(errOut, usage)
		return errors.New("missing command")
	}
	switch args[0] {
	case "gen":
		return genCmd(args[1:], out, errOut)
	case "check":
		return checkCmd(args[1:], out, errOut)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(out, usage)
		return nil
	}
	fmt.Fprint(errOut, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

func newFlags(name string, errOut io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() { fmt.Fprint(errOut, usage) }
	return fs
}
