package cli

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type auditOptions struct {
	app   *app
	names []string
	json  bool
}

// newAuditCmd parses `megagit audit` into options and hands them to runF,
// or to auditRun when runF is nil (tests pass a stub).
func newAuditCmd(a *app, runF func(*auditOptions) error) *cobra.Command {
	opts := &auditOptions{app: a}
	cmd := &cobra.Command{
		Use:   "audit [NAME...]",
		Short: "Scan each skill for text the agent should not see or trust",
		Long: `Audit reads every skill routing reads (or the NAMEd ones): its SKILL.md, as
written and as YAML decodes its name and description, and every text file of
its folder. Each finding names a file, a line, a rule and a severity:

` + rulesHelp() + `
High is what a skill has no honest reason to hold: audit exits 10 when it finds
one, lint reports it as an error, and skill import and adopt refuse the skill
unless --allow RULE is given. Medium deserves a look (a lint warning); low is
worth knowing (audit only).`,
		Example: examples(
			"megagit audit", "every skill routing reads; exit 10 on a high finding",
			"megagit audit stripe-webhooks", "one skill",
			"megagit audit --json", "the findings as JSON",
		),
		ValidArgsFunction: completeSkillArg(a, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.names = args
			return orRun(runF, auditRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: one object per skill (skill, source, findings: file, line, rule, severity, message)")
	return cmd
}

// rulesHelp lists the audit's rules for the command's help.
func rulesHelp() string {
	s := ""
	for _, r := range audit.Rules {
		s += fmt.Sprintf("  %-16s up to %s: %s\n", r.ID, r.Max, r.Doc)
	}
	return s
}

func auditRun(opts *auditOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	as, err := e.Audit(opts.names)
	if err != nil {
		return err
	}
	count := map[audit.Severity]int{}
	flagged := 0
	var rows [][]string
	for _, s := range as {
		if len(s.Findings) > 0 {
			flagged++
		}
		for _, f := range s.Findings {
			count[f.Severity]++
			rows = append(rows, []string{f.File, strconv.Itoa(f.Line), f.Rule, string(f.Severity), f.Message})
		}
	}
	if opts.json {
		if as == nil {
			as = []workspace.Audited{}
		}
		for i := range as {
			if as[i].Findings == nil {
				as[i].Findings = []audit.Finding{}
			}
		}
		if err := printJSON(a.out, as); err != nil {
			return err
		}
	} else if len(rows) > 0 {
		if err := printTable(a.out, []string{"FILE", "LINE", "RULE", "SEVERITY", "MESSAGE"}, rows); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.errOut, "megagit: %d skill(s) audited, %d with findings: %d high, %d medium, %d low\n",
		len(as), flagged, count[audit.High], count[audit.Medium], count[audit.Low])
	if count[audit.High] > 0 {
		return withHint(fmt.Errorf("%w: %d high finding(s)", errProblems, count[audit.High]),
			"a high finding is what a skill has no honest reason to hold: read the file at that line")
	}
	return nil
}

// refuseAudited audits skill folders about to enter a registry: the high
// findings allow does not allow refuse them all (an error naming each,
// with the hint of --allow); medium ones are warnings on stderr.
func refuseAudited(a *app, dirs []string, allow []string) error {
	sets := make([]auditedSet, len(dirs))
	for i, d := range dirs {
		sets[i] = auditedSet{findings: audit.Skill(d), name: func(file string) string {
			return workspace.Describe(filepath.Join(d, filepath.FromSlash(file)))
		}}
	}
	return refuseFindings(a, sets, allow, "imported")
}

// auditedSet is one skill's findings and how to name its files.
type auditedSet struct {
	findings []audit.Finding
	name     func(file string) string
}

// refuseFindings reports audit findings of skills about to be written:
// medium ones as warnings on stderr, high ones allow does not allow as
// lines on stderr and an error saying nothing was written (verb: imported,
// installed, updated) and which --allow flags would let them in.
func refuseFindings(a *app, sets []auditedSet, allow []string, verb string) error {
	var high []string
	rules := map[string]bool{}
	for _, set := range sets {
		for _, f := range set.findings {
			name := set.name(f.File)
			switch {
			case f.Severity == audit.Medium:
				fmt.Fprintf(a.errOut, "megagit: warning: audit: %s:%d: %s: %s\n", shown(name), f.Line, f.Rule, shown(f.Message))
			case len(audit.Blocking([]audit.Finding{f}, allow)) > 0:
				high = append(high, fmt.Sprintf("%s:%d: %s: %s", name, f.Line, f.Rule, f.Message))
				rules[f.Rule] = true
			}
		}
	}
	if len(high) == 0 {
		return nil
	}
	for _, h := range high {
		fmt.Fprintf(a.errOut, "megagit: audit: %s\n", shown(h))
	}
	flags := ""
	for _, r := range audit.Rules {
		if rules[r.ID] {
			flags += " --allow " + r.ID
		}
	}
	return withHint(fmt.Errorf("%w: the audit found %d high finding(s); nothing was %s", errProblems, len(high), verb),
		"read them in the files named above; if you trust them, run it again with"+flags)
}
