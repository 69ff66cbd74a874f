package cli

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry/local"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type whyOptions struct {
	app    *app
	prompt string
	skill  string
	json   bool
}

// newWhyCmd parses `megagit why` into options and hands them to runF, or
// to whyRun when runF is nil (tests pass a stub).
func newWhyCmd(a *app, runF func(*whyOptions) error) *cobra.Command {
	opts := &whyOptions{app: a}
	cmd := &cobra.Command{
		Use:   "why PROMPT NAME",
		Short: "Print every term of one skill's score for a prompt, and whether it was emitted",
		Args:  exactArgs(2, "a PROMPT and a skill NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.prompt, opts.skill = args[0], args[1]
			return orRun(runF, whyRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

type whyJSON struct {
	Skill   string           `json:"skill"`
	Rank    int              `json:"rank"`
	Of      int              `json:"of"`
	Emitted bool             `json:"emitted"`
	K       int              `json:"k"`
	Reason  ranker.KReason   `json:"reason"`
	Terms   ranker.Breakdown `json:"terms"`
	// Semantic splits the dense score into its two cosines, when a model is on.
	Semantic *semanticParts `json:"semantic,omitempty"`
}

// semanticParts is seed 000's semantic = max(cos(q, full_doc), cos(q, name)).
type semanticParts struct {
	Model string  `json:"model"`
	Full  float64 `json:"full"`
	Name  float64 `json:"name"`
}

func whyRun(opts *whyOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	if _, err := e.Reg.Skill(opts.skill); err != nil {
		return err
	}
	rt, err := opts.app.router(e)
	if err != nil {
		return err
	}
	docs := rt.Docs
	res := rt.Rank(opts.prompt, route.Settings{TopK: e.Cfg.Route.TopK, NoDynamic: !e.Cfg.Route.Dynamic})
	for pos, b := range res.Ranked {
		if b.ID != opts.skill {
			continue
		}
		emitted := false
		for _, d := range res.Emitted {
			emitted = emitted || docs[d].ID == opts.skill
		}
		var sp *semanticParts
		if sem := workspace.SemanticOf(rt); sem != nil {
			if full, name, err := sem.Parts(opts.prompt, b.Doc); err == nil {
				sp = &semanticParts{Model: sem.Model, Full: full, Name: name}
			}
		}
		if opts.json {
			return printJSON(opts.app.out, whyJSON{Skill: b.ID, Rank: pos + 1, Of: len(res.Ranked), Emitted: emitted, K: res.K, Reason: res.Reason, Terms: b, Semantic: sp})
		}
		printWhy(opts.app.out, b, sp)
		verdict := "not emitted"
		if emitted {
			verdict = "emitted"
		}
		fmt.Fprintf(opts.app.out, "# rank %d of %d, %s (k=%d, %s)\n", pos+1, len(res.Ranked), verdict, res.K, res.Reason)
		return nil
	}
	return fmt.Errorf("%w: skill %q was not loaded (run megagit lint)", local.ErrInvalid, opts.skill)
}

// printWhy follows seed 000's layout: one line per term, then the total.
func printWhy(w io.Writer, b ranker.Breakdown, sp *semanticParts) {
	line := func(name, val, detail string) { fmt.Fprintf(w, "%-16s %8s  (%s)\n", name, val, detail) }
	if b.Archived() {
		line("status_mult", "archived", "listed, never emitted; terms skipped")
		fmt.Fprintf(w, "%s\n%-16s %+8.4f\n", strings.Repeat("─", 26), "final", b.Final)
		return
	}
	if sp != nil {
		line("semantic", fmt.Sprintf("%+.4f", math.Max(sp.Full, sp.Name)), fmt.Sprintf("full=%+.4f, name=%+.4f, %s", sp.Full, sp.Name, sp.Model))
	}
	line("lexical", fmt.Sprintf("%+.4f", b.Lexical), fmt.Sprintf("bm25f=%.2f of the prompt's attainable score", b.LexicalRaw))
	rel := "lexical only"
	if b.Dense != nil {
		rel = "fused: (1-w)·lexical + w·semantic"
	}
	line("relevance", fmt.Sprintf("%+.4f", b.Relevance), rel)
	line("count_bonus", fmt.Sprintf("%+.4f", b.Count), fmt.Sprintf("h=%d, ha=%d, raw=%+.4f", b.Helpful, b.Harmful, b.CountRaw))
	line("context_match", fmt.Sprintf("%+.4f", b.Context), fmt.Sprintf("help=%+.4f, harm=%+.4f", b.HelpCtx, b.HarmCtx))
	line("related_verdict", fmt.Sprintf("%+.4f", b.Related), fmt.Sprintf("help_max=%+.4f, harm_max=%+.4f", b.RelatedHelp, b.RelatedHarm))
	line("trajectory", fmt.Sprintf("× %.4f", b.Weight), "exponential moving average of implicit outcomes; 1 until one arrives")
	line("status_mult", fmt.Sprintf("× %.4f", b.StatusMult), b.Status)
	fmt.Fprintf(w, "%s\n%-16s %+8.4f  (= (relevance + count + context + related) × trajectory × status)\n", strings.Repeat("─", 26), "final", b.Final)
}
