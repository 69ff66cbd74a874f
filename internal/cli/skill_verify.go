package cli

import (
	"fmt"
	"strings"

	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/registry/install"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/spf13/cobra"
)

type skillVerifyOptions struct {
	app   *app
	names []string
	json  bool
}

// newSkillVerifyCmd parses `megagit skill verify` into options and hands
// them to runF, or to skillVerifyRun when runF is nil (tests pass a stub).
func newSkillVerifyCmd(a *app, runF func(*skillVerifyOptions) error) *cobra.Command {
	opts := &skillVerifyOptions{app: a}
	cmd := &cobra.Command{
		Use:   "verify [NAME...]",
		Short: "Check installed skills against the lock; exit 10 when one differs",
		Long: `Check every installed skill (or those named) against .megagit/skills.lock,
offline: each file of its folder as it is on disk against the sha256 the
lock holds (SKILL.md without its evidence, which verdicts write), no file
missing, none added, the skill still in the registry, and the entry naming
a commit. Each skill that differs is named with what differs; the exit code
is then 10, so a CI job fails. Nothing is written.

A skill that differs is also held back from the agent until it is
installed again or allowed (audit.allow: [NAME:lock-drift]).`,
		Example: examples(
			"megagit skill verify", "every installed skill; exit 10 when one differs",
			"megagit skill verify pdf-forms --json", "one skill, as JSON",
		),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.names = args
			return orRun(runF, skillVerifyRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: skills (name, source, ref, commit, missing, files added/removed/changed, problem), ok")
	return cmd
}

// verifyJSON is `megagit skill verify --json`.
type verifyJSON struct {
	Skills []install.Drift `json:"skills"`
	OK     bool            `json:"ok"`
}

func skillVerifyRun(opts *skillVerifyOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	drifts, err := install.Verify(e.Reg, opts.names)
	if err != nil {
		return err
	}
	var bad []string
	for i := range drifts {
		drifts[i].Source = gitauth.Redact(drifts[i].Source)
		if !drifts[i].OK() {
			bad = append(bad, drifts[i].Name)
		}
	}
	if opts.json {
		if err := printJSON(opts.app.out, verifyJSON{Skills: drifts, OK: len(bad) == 0}); err != nil {
			return err
		}
	} else {
		rows := make([][]string, len(drifts))
		for i, d := range drifts {
			at := d.Commit
			if len(at) > 12 {
				at = at[:12]
			}
			rows[i] = []string{d.Name, verifyState(d), shown(d.Source), at}
		}
		if err := printTable(opts.app.out, []string{"SKILL", "STATE", "SOURCE", "COMMIT"}, rows); err != nil {
			return err
		}
	}
	if len(drifts) == 0 {
		opts.app.say("megagit: no skill installed from git: nothing to verify")
		return nil
	}
	if len(bad) > 0 {
		return withHint(fmt.Errorf("%w: %d of %d installed skill(s) differ from %s: %s", errProblems, len(bad), len(drifts), skillslock.File, strings.Join(bad, ", ")),
			"`megagit skill update --force NAME` takes a skill's files from its source again; `megagit doctor --fix` drops the entries of skills no longer here")
	}
	opts.app.say(fmt.Sprintf("megagit: %d installed skill(s) match %s", len(drifts), skillslock.File))
	return nil
}

// verifyState is the STATE column: ok, or what differs.
func verifyState(d install.Drift) string {
	if d.OK() {
		return "ok"
	}
	var parts []string
	if d.Missing {
		parts = append(parts, "missing: the registry no longer holds it")
	}
	if !d.Files.Empty() {
		parts = append(parts, shown(d.Files.Describe(0)))
	}
	if d.Problem != "" {
		parts = append(parts, shown(d.Problem))
	}
	return strings.Join(parts, "; ")
}
