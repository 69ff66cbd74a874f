package cli

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/install"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/skillfile"
	"github.com/spf13/cobra"
)

type skillInstallOptions struct {
	app    *app
	source string
	names  []string
	paths  []string
	ref    string
	all    bool
	force  bool
	allow  []string
	json   bool
}

// newSkillInstallCmd parses `megagit skill install` into options and hands
// them to runF, or to skillInstallRun when runF is nil (tests pass a stub).
func newSkillInstallCmd(a *app, runF func(*skillInstallOptions) error) *cobra.Command {
	opts := &skillInstallOptions{app: a}
	cmd := &cobra.Command{
		Use:   "install SOURCE[@REF] [NAME...] [--path P]... [--ref R] [--all]",
		Short: "Install skills from a git repository or a local path, in one commit",
		Long: `Install skills from a git repository: SOURCE is a git URL (https, ssh,
git@host:org/repo, file://), OWNER/REPO of GitHub (when no folder has that
path here), or the path of a local repository; SOURCE@REF (or --ref R)
installs from a tag, a commit or a branch: a tag or a commit is a pin that
skill update keeps. It is fetched
into memory (never into the registry); every folder of it holding a SKILL.md
is a skill. Choose which to install by NAME, with --all, or with --path
(repeatable) limiting the search to folders of the source: when one skill
is left, it is installed. Each SKILL.md must pass megagit lint and every
file megagit audit (a high finding refuses the install unless --allow RULE;
a medium one is a warning); all of them go in one commit, with their
provenance in .megagit/skills.lock (the source without secrets, the ref,
the commit, the folder, each file's sha256).

A name the registry has already is refused, unless it was installed from
the same source: then it is updated (see megagit skill update).`,
		Example: examples(
			"megagit skill install acme/skills --all", "every skill of a GitHub repository",
			"megagit skill install https://github.com/acme/skills pdf-forms", "one skill, by name",
			"megagit skill install ../skills --path review --ref v1.2", "the skills of one folder, at a tag",
			"megagit skill install acme/skills@5c0f2a9e pdf-forms", "pinned to a commit",
		),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("%s expects a SOURCE (a git URL or a local repository), then optional skill NAMEs", cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.source, opts.names = args[0], args[1:]
			if src, ref, ok := splitPin(opts.source); ok {
				if opts.ref != "" {
					return usageError{fmt.Errorf("%s: %s names a ref and so does --ref %s: give one", cmd.CommandPath(), gitauth.Redact(opts.source), opts.ref)}
				}
				opts.source, opts.ref = src, ref
			}
			if opts.all && len(opts.names) > 0 {
				return usageError{fmt.Errorf("%s: give skill NAMEs or --all, not both", cmd.CommandPath())}
			}
			if err := audit.CheckAllow(opts.allow); err != nil {
				return usageError{err}
			}
			return orRun(runF, skillInstallRun)(opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.paths, "path", nil, "only the skills in this folder of the source (`P`; repeatable)")
	cmd.Flags().StringVar(&opts.ref, "ref", "", "the branch, tag or commit to install from (`R`; default: the source's default branch)")
	cmd.Flags().BoolVar(&opts.all, "all", false, "install every skill found")
	cmd.Flags().BoolVar(&opts.force, "force", false, "update a skill installed from the same source even if it was edited here")
	cmd.Flags().StringArrayVar(&opts.allow, "allow", nil, "install skills whose high audit findings are of this `RULE` all the same (repeatable; `megagit audit --help` lists the rules)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: source, ref, commit, skills (name, path, source_path, status, files, audit), registry commit, warnings")
	return cmd
}

// splitPin reads SOURCE@REF (a tag, a branch or a commit, as gh skill
// takes it): the last @ whose tail holds no / or : (so git@host:org/repo
// and https://token@host/repo are sources, not pins). A ref with a /
// in it is given with --ref.
func splitPin(source string) (src, ref string, ok bool) {
	i := strings.LastIndexByte(source, '@')
	if i <= 0 || i == len(source)-1 {
		return source, "", false
	}
	tail := source[i+1:]
	if strings.ContainsAny(tail, "/:\\") || !strings.ContainsAny(source[:i], "/:\\") {
		return source, "", false // a source has a / or a : (OWNER/REPO, a URL, a path)
	}
	return source[:i], tail, true
}

// installedJSON is one skill in `megagit skill install --json`.
type installedJSON struct {
	Name       string          `json:"name"`
	Path       string          `json:"path"`
	SourcePath string          `json:"source_path"`
	Status     string          `json:"status"` // installed, updated, unchanged
	Files      []string        `json:"files"`
	Audit      []audit.Finding `json:"audit"` // files named relative to the skill's folder
}

func skillInstallRun(opts *skillInstallOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	var within []string
	for _, p := range opts.paths {
		within = append(within, regsync.CleanSourcePath(p))
	}
	useNetwork(e.Cfg)
	a.say(fmt.Sprintf("megagit: fetching %s", gitauth.Redact(opts.source)))
	src, err := regsync.FetchSource(context.Background(), opts.source, opts.ref)
	if err != nil {
		return netErr(err)
	}
	found, err := src.Skills(within)
	if err != nil {
		return err
	}
	chosen, err := chooseSkills(found, opts)
	if err != nil {
		if opts.json {
			_ = printJSON(a.out, map[string]any{"source": src.URL, "commit": src.Commit.String(), "found": found})
		} else {
			printFound(a, found)
		}
		return err
	}
	mode := skillslock.ModeName
	switch {
	case opts.all:
		mode = skillslock.ModeAll
	case len(opts.names) == 0:
		mode = skillslock.ModePath
	}
	items, findings, err := install.FromSource(e.Reg, src, chosen, mode)
	if err != nil {
		return err
	}
	sets := make([]auditedSet, len(items))
	for i, it := range items {
		sets[i] = auditedSet{findings: findings[i], name: inSource(it.Entry.Path)}
	}
	if err := refuseFindings(a, sets, opts.allow, "installed"); err != nil {
		return err
	}
	done, warnings, hash, err := install.Skills(e.Reg, items, install.Options{Force: opts.force, Action: "install"})
	if err != nil {
		return withHint(err, installHint(err)...)
	}
	printWarnings(a, warnings)
	out := make([]installedJSON, len(done))
	rows := make([][]string, len(done))
	var names []string
	for i, d := range done {
		status := "installed"
		switch {
		case d.Unchanged:
			status = "unchanged"
		case d.Update:
			status = "updated"
		}
		out[i] = installedJSON{Name: d.Name, Path: d.Path, SourcePath: chosen[i].Path, Status: status, Files: nonNil(d.Files), Audit: findings[i]}
		rows[i] = []string{d.Name, status, d.Path, chosen[i].Path}
		if !d.Unchanged {
			names = append(names, d.Name)
		}
	}
	at := src.Commit.String()[:12]
	if hash.IsZero() {
		a.say(fmt.Sprintf("megagit: nothing to install: %d skill(s) already installed from %s at %s", len(done), gitauth.Redact(src.URL), at))
	} else {
		a.say(fmt.Sprintf("megagit: installed %d skill(s) from %s at %s: %s (commit %s)",
			len(names), gitauth.Redact(src.URL), at, strings.Join(names, ", "), hash.String()[:12]))
	}
	if opts.json {
		if warnings == nil {
			warnings = []skillfile.Problem{}
		}
		commit := ""
		if !hash.IsZero() {
			commit = hash.String()
		}
		return printJSON(a.out, map[string]any{"source": src.URL, "ref": src.Ref, "source_commit": src.Commit.String(),
			"skills": out, "commit": commit, "warnings": warnings})
	}
	return printTable(a.out, []string{"SKILL", "STATUS", "PATH", "FROM"}, rows)
}

// chooseSkills picks the skills to install among those found: by name,
// all, or the only one; several without a choice is a usage error saying
// how to choose.
func chooseSkills(found []regsync.FoundSkill, opts *skillInstallOptions) ([]regsync.FoundSkill, error) {
	var chosen []regsync.FoundSkill
	switch {
	case len(opts.names) > 0:
		for _, n := range opts.names {
			var match []regsync.FoundSkill
			for _, f := range found {
				if f.Name == n {
					match = append(match, f)
				}
			}
			switch len(match) {
			case 0:
				return nil, fmt.Errorf("%w: no skill %q in %s (found %s)", registry.ErrNotFound, n, gitauth.Redact(opts.source), foundNames(found))
			case 1:
				chosen = append(chosen, match[0])
			default:
				return nil, withHint(fmt.Errorf("%w: %d skills named %q in %s", registry.ErrExists, len(match), n, gitauth.Redact(opts.source)),
					"choose one folder with --path (see the list above)")
			}
		}
	case opts.all || len(found) == 1:
		chosen = found
	default:
		return nil, withHint(usageError{fmt.Errorf("%d skills in %s: choose which to install", len(found), gitauth.Redact(opts.source))},
			"name them: megagit skill install SOURCE NAME...", "or one folder: --path P (repeatable), or every one: --all")
	}
	seen := map[string]string{}
	for _, c := range chosen {
		if p, ok := seen[c.Name]; ok {
			return nil, withHint(fmt.Errorf("%w: two skills named %q: %s and %s", registry.ErrExists, c.Name, p, c.Path),
				"choose one folder with --path")
		}
		seen[c.Name] = c.Path
	}
	return chosen, nil
}

func foundNames(found []regsync.FoundSkill) string {
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// printFound lists the skills a source holds (stdout: it is the answer
// when no choice was made).
func printFound(a *app, found []regsync.FoundSkill) {
	rows := make([][]string, len(found))
	for i, f := range found {
		rows[i] = []string{f.Name, f.Path, f.Description}
	}
	_ = printTable(a.out, []string{"SKILL", "PATH", "DESCRIPTION"}, rows)
}

// inSource names a file of the skill at folder dir of a source, as the
// audit's findings about it are shown.
func inSource(dir string) func(string) string {
	return func(file string) string { return path.Join(dir, file) }
}

// installHint is what to do about an install or update that was refused.
func installHint(err error) []string {
	var le *install.LocalEditsError
	switch {
	case errors.As(err, &le):
		return []string{"`megagit skill update --force " + le.Skill + "` overwrites them (its evidence stays); `git diff` against the lock's files shows them"}
	case strings.Contains(err.Error(), "nothing installed"):
		return []string{"`megagit lint` checks skills the same way; fix the source and install again"}
	}
	return nil
}

func printWarnings(a *app, warnings []skillfile.Problem) {
	for _, w := range warnings {
		fmt.Fprintf(a.errOut, "megagit: warning: %s:%d: field %s: %s\n", shown(w.File), w.Line, shown(w.Field), shown(w.Message))
	}
}
