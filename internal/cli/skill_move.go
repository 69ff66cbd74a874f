package cli

import (
	"fmt"
	"strings"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/skillfile"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type skillRmOptions struct {
	app  *app
	name string
	json bool
}

// newSkillRmCmd parses `megagit skill rm` into options and hands them to
// runF, or to skillRmRun when runF is nil (tests pass a stub).
func newSkillRmCmd(a *app, runF func(*skillRmOptions) error) *cobra.Command {
	opts := &skillRmOptions{app: a}
	cmd := &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove a skill's folder and its ledger in one commit",
		Long: `skill rm removes a skill's folder and its ledger in one commit; git history
keeps them.`,
		Args:              exactArgs(1, "a skill NAME"),
		ValidArgsFunction: completeSkillArg(a, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			return orRun(runF, skillRmRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: name, commit, ledger, files")
	return cmd
}

func skillRmRun(opts *skillRmOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	m, hash, err := e.Reg.RemoveSkill(opts.name)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%d file(s)", len(m.Files))
	if m.Ledger != "" {
		what += ", with its ledger"
	}
	opts.app.say(fmt.Sprintf("megagit: removed %s (%s; commit %s); `git revert %s` brings it back",
		opts.name, what, hash.String()[:12], hash.String()[:12]))
	if opts.json {
		return printJSON(opts.app.out, map[string]any{"name": opts.name, "commit": hash.String(), "ledger": m.Ledger, "files": m.Files})
	}
	return nil
}

type skillMvOptions struct {
	app      *app
	from, to string
	json     bool
}

// newSkillMvCmd parses `megagit skill mv` into options and hands them to
// runF, or to skillMvRun when runF is nil (tests pass a stub).
func newSkillMvCmd(a *app, runF func(*skillMvOptions) error) *cobra.Command {
	opts := &skillMvOptions{app: a}
	cmd := &cobra.Command{
		Use:   "mv OLD NEW",
		Short: "Rename a skill: its folder, name, ledger and lock entry, in one commit",
		Long: `skill mv renames a skill: its folder, the name: of its SKILL.md, its ledger
and, for an installed skill, its lock entry, in one commit.`,
		Args:              exactArgs(2, "the skill's OLD and NEW names"),
		ValidArgsFunction: completeSkillArg(a, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.from, opts.to = args[0], args[1]
			return orRun(runF, skillMvRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: from, to, path, ledger, commit, files")
	return cmd
}

func skillMvRun(opts *skillMvOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	m, hash, err := e.Reg.RenameSkill(opts.from, opts.to)
	if err != nil {
		return err
	}
	what := ""
	if m.Ledger != "" {
		what = ", with its ledger"
	}
	opts.app.say(fmt.Sprintf("megagit: renamed %s to %s: %s%s (commit %s)", opts.from, opts.to, m.Path, what, hash.String()[:12]))
	if opts.json {
		return printJSON(opts.app.out, map[string]any{"from": opts.from, "to": opts.to, "path": m.Path,
			"ledger": m.Ledger, "commit": hash.String(), "files": m.Files})
	}
	return nil
}

type skillImportOptions struct {
	app     *app
	sources []string
	allow   []string
	json    bool
}

// newSkillImportCmd parses `megagit skill import` into options and hands
// them to runF, or to skillImportRun when runF is nil (tests pass a stub).
func newSkillImportCmd(a *app, runF func(*skillImportOptions) error) *cobra.Command {
	opts := &skillImportOptions{app: a}
	cmd := &cobra.Command{
		Use:   "import PATH...",
		Short: "Copy skill folders into the registry in one commit",
		Long: `skill import copies skill folders (each PATH a folder with SKILL.md, or a
folder of them) into the registry in one commit.`,
		Example: examples(
			"megagit skill import ~/.claude/skills/flaky-tests", "one skill folder",
			"megagit skill import ./old-skills", "every skill folder in it",
		),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("%s expects at least one PATH", cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.sources = args
			if err := audit.CheckAllow(opts.allow); err != nil {
				return usageError{err}
			}
			return orRun(runF, skillImportRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: commit, skills (name, from, path, files), warnings")
	cmd.Flags().StringArrayVar(&opts.allow, "allow", nil, "import skills whose high audit findings are of this `RULE` all the same (repeatable; `megagit audit --help` lists the rules)")
	return cmd
}

// importedJSON is one skill in `megagit skill import --json`.
type importedJSON struct {
	Name  string   `json:"name"`
	From  string   `json:"from"`
	Path  string   `json:"path"`
	Files []string `json:"files"`
}

func skillImportRun(opts *skillImportOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	dirs, err := registry.ImportDirs(opts.sources)
	if err != nil {
		return err
	}
	if err := refuseAudited(a, dirs, opts.allow); err != nil {
		return err
	}
	moved, warnings, hash, err := e.Reg.ImportSkills(opts.sources)
	if err != nil {
		return withHint(err, "`megagit lint` checks skills the same way; fix the files and import again")
	}
	for _, w := range warnings {
		fmt.Fprintf(a.errOut, "megagit: warning: %s\n", shown((&skillfile.FieldError{File: w.File, Line: w.Line, Field: w.Field, Msg: w.Message}).Error()))
	}
	out := make([]importedJSON, len(moved))
	names := make([]string, len(moved))
	for i, m := range moved {
		out[i] = importedJSON{Name: m.Name, From: m.From, Path: m.Path, Files: m.Files}
		names[i] = m.Name
	}
	a.say(fmt.Sprintf("megagit: imported %d skill(s): %s (commit %s)", len(moved), strings.Join(names, ", "), hash.String()[:12]))
	if opts.json {
		if warnings == nil {
			warnings = []skillfile.Problem{}
		}
		return printJSON(a.out, map[string]any{"commit": hash.String(), "skills": out, "warnings": warnings})
	}
	return nil
}

// completeSkillArg completes the argument at pos (0-based) with the
// registry's skill names, read from the folders alone (no model, no
// evidence), and the argument after it with next when given (a verdict's
// words); nothing when there is no registry. Shells call it through
// cobra's __complete command.
func completeSkillArg(a *app, pos int, next ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var cands []string
		switch len(args) {
		case pos:
			e, err := workspace.Open(a.workDir(), nil, func(string) {}) // a completion prints no warnings
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			if cands, err = e.Reg.SkillNames(); err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
		case pos + 1:
			cands = next
		}
		var out []string
		for _, c := range cands {
			if strings.HasPrefix(c, toComplete) {
				out = append(out, c)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
