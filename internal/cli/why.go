package cli

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type whyOptions struct {
	app    *app
	prompt string
	skill  string
	paths  []string
	json   bool
}

// newWhyCmd parses `megagit why` into options and hands them to runF, or
// to whyRun when runF is nil (tests pass a stub).
func newWhyCmd(a *app, runF func(*whyOptions) error) *cobra.Command {
	opts := &whyOptions{app: a}
	cmd := &cobra.Command{
		Use:   "why PROMPT NAME",
		Short: "Print every term of one skill's score for a prompt",
		Long: `why prints every term of skill NAME's score for PROMPT, and whether it was
emitted.`,
		Example: examples(
			`megagit why "stripe webhook returns 400" stripe-webhooks`, "every term of the skill's score",
			`megagit why "flaky CI test" flaky-tests --json`, "the same, as JSON",
		),
		Args: exactArgs(2, "a PROMPT and a skill NAME"),
		// The PROMPT is the user's own text: only the NAME completes.
		ValidArgsFunction: completeSkillArg(a, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.prompt, opts.skill = args[0], args[1]
			return orRun(runF, whyRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	cmd.Flags().StringArrayVar(&opts.paths, "path", nil, "a `FILE` being worked on, for skills limited by paths: (repeatable)")
	return cmd
}

type whyJSON struct {
	Skill string `json:"skill"`
	// Source is project, user or team; Path the skill's SKILL.md.
	Source  string           `json:"source"`
	Path    string           `json:"path"`
	Rank    int              `json:"rank"`
	Of      int              `json:"of"`
	Emitted bool             `json:"emitted"`
	K       int              `json:"k"`
	Reason  ranker.KReason   `json:"reason"`
	Terms   ranker.Breakdown `json:"terms"`
	// Semantic splits the dense score into its two cosines, when a model is on.
	Semantic *semanticParts `json:"semantic,omitempty"`
	// Passage is the section of the skill's body that shares the most of
	// the prompt's words, if any does.
	Passage *ranker.Passage `json:"passage,omitempty"`
	// Gate is the abstention gate's reading of the prompt, when one decided.
	Gate    *whyGate       `json:"gate,omitempty"`
	Signals ranker.Signals `json:"signals"`
	// Focus is a long prompt's sentences, each a request or narrative
	// (ranker.FocusOf), when they were weighed.
	Focus ranker.Focus `json:"focus,omitempty"`
	// Corrections are the prompt's words the catalog does not know, read
	// as catalog words one edit away; both channels saw the corrections.
	Corrections []ranker.Correction `json:"corrections,omitempty"`
	// Forced says why the config's force: list acted on the skill: it
	// names the skill, and emitted it where the ranking alone did not.
	Forced string `json:"forced,omitempty"`
	// Never says why the skill is never emitted (user-only, or rules that
	// cannot be read); OutOfPaths why its paths keep it out here.
	Never      string `json:"never,omitempty"`
	OutOfPaths string `json:"out_of_paths,omitempty"`
	// SameAs says which emitted skill MMR found this one says the same
	// as, and left it out for (duplicateWhy).
	SameAs string `json:"same_as,omitempty"`
}

// whyGate is the gate's decision for one prompt: each feature's value,
// weight and share of the log-odds, and the probability that some skill
// fits.
type whyGate struct {
	Prob      float64          `json:"p"`
	Threshold float64          `json:"threshold"`
	Bias      float64          `json:"bias"`
	MinSkills int              `json:"min_skills"`
	Features  []whyGateFeature `json:"features"`
}

type whyGateFeature struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Weight float64 `json:"weight"`
	Term   float64 `json:"term"`
}

// gateReading is res's gate decision, or nil when no gate decided.
func gateReading(res ranker.Result) *whyGate {
	g := res.Gate
	if g == nil {
		return nil
	}
	x, terms := res.Signals.Features(), g.Terms(res.Signals)
	out := &whyGate{Prob: g.Prob(res.Signals), Threshold: g.Threshold, Bias: g.Bias, MinSkills: g.MinSkills}
	for i, name := range ranker.GateFeatures {
		if !g.Weighs(name) {
			continue
		}
		out.Features = append(out.Features, whyGateFeature{Name: name, Value: x[i], Weight: g.Weights[name], Term: terms[i]})
	}
	return out
}

// printGate explains the abstention decision under the skill's terms.
func printGate(w io.Writer, res ranker.Result) {
	gr := gateReading(res)
	if gr == nil {
		fmt.Fprintf(w, "# gate: none decided (%s): the floors and dynamic K did\n", noGateWhy(res))
		return
	}
	verdict := "something fits"
	if gr.Prob < gr.Threshold {
		verdict = "nothing fits: abstain"
	}
	fmt.Fprintf(w, "# gate: p = %.3f against threshold %.2f, %s\n", gr.Prob, gr.Threshold, verdict)
	for _, f := range gr.Features {
		fmt.Fprintf(w, "#   %-14s %9.4f × %+9.4f = %+8.4f\n", f.Name, f.Value, f.Weight, f.Term)
	}
	fmt.Fprintf(w, "#   %-14s %33s\n", "bias", fmt.Sprintf("%+8.4f", gr.Bias))
}

// printFocus says how a long prompt's sentences were weighed, if they were.
func printFocus(w io.Writer, f ranker.Focus) {
	if f == nil {
		return
	}
	fmt.Fprintf(w, "# long prompt: %d of %d sentences are narrative, their words weighed %.2f; the model embeds the rest\n",
		f.Narrated(), len(f), ranker.NarrativeWeight)
	for _, s := range f {
		kind := "narrative"
		if s.Request {
			kind = "request"
		}
		fmt.Fprintf(w, "#   %-9s %s\n", kind, shown(s.Text))
	}
}

// noGateWhy says why no gate decided for res.
func noGateWhy(res ranker.Result) string {
	switch {
	case res.Reason == ranker.ReasonFixed:
		return "dynamic K is off"
	case res.Reason == ranker.ReasonNoMatch || res.Reason == ranker.ReasonEmptyQuery:
		return "no skill matches the prompt"
	}
	return fmt.Sprintf("dynamic_k.gate is off, or no gate was fitted for this model or for a catalog of %d skills", res.Signals.Skills)
}

// semanticParts is the semantic score's two cosines: max(cos(q, full_doc),
// cos(q, name)).
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
	src, err := e.Skill(opts.skill)
	if err != nil {
		return err
	}
	if never := src.NotRoutedWhy(); never != "" {
		if opts.json {
			return printJSON(opts.app.out, whyJSON{Skill: src.Name, Source: src.Kind, Path: src.AbsPath, Never: never, Reason: "never"})
		}
		fmt.Fprintf(opts.app.out, "# %s from %s (%s)\n# never emitted: %s\n", shown(src.Name), src.Kind, shown(workspace.Describe(src.AbsPath)), shown(never))
		return nil
	}
	rt, err := opts.app.router(e, false) // ranks, renders nothing
	if err != nil {
		return err
	}
	docs := rt.Docs
	where := route.WhereAt("", opts.prompt, opts.paths)
	st := workspace.RouteSettings(e.Cfg)
	st.Where = where
	res := rt.Rank(opts.prompt, st)
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
			if full, name, err := sem.Parts(route.DenseText(rt.Index.ReadWith(opts.prompt, "")), b.Doc); err == nil {
				sp = &semanticParts{Model: sem.Model, Full: full, Name: name}
			}
		}
		var passage *ranker.Passage
		if p, ok := ranker.BestPassage(src.File.Body(), opts.prompt); ok {
			passage = &p
		}
		out := ""
		if b.Out {
			out = outOfPathsWhy(src.Paths, where)
		}
		same := ""
		if !emitted {
			same = duplicateWhy(res, docs, b.Doc)
		}
		forced := forcedWhy(src, b)
		if opts.json {
			return printJSON(opts.app.out, whyJSON{Skill: b.ID, Source: src.Kind, Path: src.AbsPath, Rank: pos + 1, Of: len(res.Ranked), Emitted: emitted, K: res.K, Reason: res.Reason,
				Terms: b, Semantic: sp, Passage: passage, Gate: gateReading(res), Signals: res.Signals, Focus: res.Focus, Corrections: res.Corrections, OutOfPaths: out,
				Forced: forced, SameAs: same})
		}
		fmt.Fprintf(opts.app.out, "# %s from %s (%s)\n", shown(b.ID), src.Kind, shown(workspace.Describe(src.AbsPath)))
		printCorrections(opts.app.out, res.Corrections)
		printWhy(opts.app.out, b, sp, passage)
		if b.LearntCtx > 0 {
			printLearnt(opts.app.out, e, b.ID, opts.prompt)
		}
		if out != "" {
			fmt.Fprintf(opts.app.out, "# out of paths: %s\n", shown(out))
		}
		verdict := "not emitted"
		if emitted {
			verdict = "emitted"
		}
		fmt.Fprintf(opts.app.out, "# rank %d of %d, %s (k=%d, %s)\n", pos+1, len(res.Ranked), verdict, res.K, res.Reason)
		if forced != "" {
			fmt.Fprintf(opts.app.out, "# force: %s\n", shown(forced))
		}
		if same != "" {
			fmt.Fprintf(opts.app.out, "# duplicate: %s\n", shown(same))
		}
		printFocus(opts.app.out, res.Focus)
		printGate(opts.app.out, res)
		return nil
	}
	return fmt.Errorf("%w: skill %q was not loaded (run megagit lint)", errkind.ErrInvalid, opts.skill)
}

// duplicateWhy says which emitted skill MMR left doc out beside, as
// saying the same thing ("" when it did not): by the model's cosine of
// their names and descriptions, or by their words.
func duplicateWhy(res ranker.Result, docs []ranker.Doc, doc int) string {
	for _, d := range res.Dropped {
		if d.Doc == doc {
			by := "their words' TF-IDF cosine"
			if d.ByModel {
				by = "the model's cosine of their names and descriptions"
			}
			return fmt.Sprintf("left out: it says the same as %s, emitted (%s %.2f)", docs[d.Like].ID, by, d.Sim)
		}
	}
	return ""
}

// forcedWhy says what the config's force: list did to the skill ("" when
// it does not name it).
func forcedWhy(src *workspace.Sourced, b ranker.Breakdown) string {
	switch {
	case src.Forced == "":
		return ""
	case b.Forced:
		return "the config's force: list names it (" + src.Forced + ") and the prompt matches it: emitted though the gate, K or the cap left it out"
	case b.Relevance <= 0:
		return "the config's force: list names it (" + src.Forced + "), but the prompt does not match it: not forced"
	}
	return "the config's force: list names it (" + src.Forced + "); the ranking alone decided"
}

// printCorrections names each prompt word read as a catalog word, so a
// match through a typo is not a mystery.
func printCorrections(w io.Writer, cs []ranker.Correction) {
	if len(cs) == 0 {
		return
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = shown(c.Word) + " → " + shown(c.To)
	}
	fmt.Fprintf(w, "# read as typos: %s\n", strings.Join(parts, ", "))
}

// printWhy prints one line per term of the score, then the total, so each
// number a user sees can be traced to what moved it.
func printWhy(w io.Writer, b ranker.Breakdown, sp *semanticParts, passage *ranker.Passage) {
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
	if passage != nil {
		head := "(before the first heading)"
		if passage.Heading != "" {
			head = "## " + passage.Heading
		}
		fmt.Fprintf(w, "%-16s %s  (shares %s: \"%s\")\n", "  passage", shown(hook.Clip(head, 60)), strings.Join(passage.Terms, ", "), shown(hook.Clip(passage.Line, 80)))
	}
	rel := "lexical only"
	if b.Dense != nil {
		rel = "fused: (1-w)·lexical + w·semantic"
	}
	line("relevance", fmt.Sprintf("%+.4f", b.Relevance), rel)
	line("count_bonus", fmt.Sprintf("%+.4f", b.Count), fmt.Sprintf("h=%d, ha=%d, raw=%+.4f", b.Helpful, b.Harmful, b.CountRaw))
	ctx := fmt.Sprintf("help=%+.4f, harm=%+.4f", b.HelpCtx, b.HarmCtx)
	if b.HelpCtxModel > 0 || b.HarmCtxModel > 0 {
		ctx += fmt.Sprintf("; words %+.4f / %+.4f, model %+.4f / %+.4f", b.HelpCtxWords, b.HarmCtxWords, b.HelpCtxModel, b.HarmCtxModel)
	}
	line("context_match", fmt.Sprintf("%+.4f", b.Context), ctx)
	rel = fmt.Sprintf("help_max=%+.4f, harm_max=%+.4f", b.RelatedHelp, b.RelatedHarm)
	if b.RelatedHelpModel > 0 || b.RelatedHarmModel > 0 {
		rel += fmt.Sprintf("; model %+.4f / %+.4f", b.RelatedHelpModel, b.RelatedHarmModel)
	}
	line("related_verdict", fmt.Sprintf("%+.4f", b.Related), rel)
	if b.LearntCtx > 0 {
		line("learnt_match", fmt.Sprintf("%+.4f", b.Learnt), fmt.Sprintf("best prompt learnt from the agents' history: %.4f, weighing blend.learnt_w of a verdict's context", b.LearntCtx))
	}
	line("trajectory", fmt.Sprintf("× %.4f", b.Weight), "exponential moving average of implicit outcomes; 1 until one arrives")
	line("silence", fmt.Sprintf("× %.4f", b.Silence), "sessions in a row that injected it and never used it; 1 up to five")
	line("status_mult", fmt.Sprintf("× %.4f", b.StatusMult), b.Status)
	if b.Decay != 1 {
		line("evidence_age", fmt.Sprintf("%d d", b.AgeDays), fmt.Sprintf("learnt terms and multipliers faded to ×%.4f of their pull", b.Decay))
	}
	fmt.Fprintf(w, "%s\n%-16s %+8.4f  (= (relevance + count + context + related + learnt) × trajectory × silence × status)\n", strings.Repeat("─", 26), "final", b.Final)
}

// printLearnt names the learnt prompt of skill that shares the most
// words with prompt, and where it was learnt from (agent, session, date).
func printLearnt(w io.Writer, e *workspace.Workspace, skill, prompt string) {
	recs, _ := e.LearntOf(skill)
	words := map[string]bool{}
	for _, f := range strings.Fields(strings.ToLower(prompt)) {
		words[f] = true
	}
	best, most := -1, -1
	for i := len(recs) - 1; i >= 0; i-- {
		n := 0
		for _, f := range strings.Fields(strings.ToLower(recs[i].Prompt)) {
			if words[f] {
				n++
			}
		}
		if n > most {
			best, most = i, n
		}
	}
	if best < 0 {
		return
	}
	r := recs[best]
	fmt.Fprintf(w, "# learnt from %s session %s, %s (%s): \"%s\"\n", shown(r.Agent), shown(hook.Clip(r.Session, 40)), r.Time.UTC().Format("2006-01-02"), shown(r.How), shown(hook.Clip(r.Prompt, 100)))
}

// outOfPathsWhy says why a skill's paths kept it out for a prompt asked
// at where.
func outOfPathsWhy(paths []string, where *route.Where) string {
	dir, files := "outside the project", "no file"
	if where.Dir != "" {
		dir = where.Dir
	}
	if len(where.Files) > 0 {
		files = strings.Join(where.Files, ", ")
	}
	return fmt.Sprintf("its paths (%s) match neither the working directory (%s) nor a file named (%s); give the files with --path", strings.Join(paths, ", "), dir, files)
}
