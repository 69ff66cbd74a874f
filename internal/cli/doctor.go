package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/hook/install"
	"github.com/megagit/megagit/hook/stop"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	skillinstall "github.com/megagit/megagit/registry/install"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/route/index"
	"github.com/megagit/megagit/skillfile"
	"github.com/megagit/megagit/workspace"
	"github.com/megagit/megagit/workspace/adopt"
	"github.com/spf13/cobra"
)

type doctorOptions struct {
	app     *app
	json    bool
	fix     bool
	offline bool
	timeout time.Duration
}

// newDoctorCmd parses `megagit doctor` into options and hands them to runF,
// or to doctorRun when runF is nil (tests pass a stub).
func newDoctorCmd(a *app, runF func(*doctorOptions) error) *cobra.Command {
	opts := &doctorOptions{app: a}
	cmd := &cobra.Command{
		Use:   "doctor [--json] [--fix]",
		Short: "Check the registry, its caches, lock, hooks and remote; --fix repairs",
		Long: `doctor runs every check and prints ok, warn or fail for each. It exits 0
when nothing fails and 10 when something does. --fix finishes an interrupted
write (an interrupted change of layout too) and rebuilds evidence from the
ledgers (megagit resync), then checks again;
commits that git fsck --strict rejects cannot be repaired in place: --fix
prints the steps that rewrite the history.`,
		Example: examples(
			"megagit doctor", "run every check",
			"megagit doctor --fix", "repair what can be repaired, then check again",
			"megagit doctor --offline", "skip the remote's reachability check",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.timeout < 0 {
				return usageError{fmt.Errorf("--timeout %v: want a duration of 0 or more", opts.timeout)}
			}
			return orRun(runF, doctorRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the checks as JSON")
	cmd.Flags().BoolVar(&opts.fix, "fix", false, "repair what can be repaired (interrupted write, stale evidence)")
	cmd.Flags().BoolVar(&opts.offline, "offline", false, "skip the remote reachability check")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", 5*time.Second, "how long to wait for the git remote")
	return cmd
}

func doctorRun(opts *doctorOptions) error {
	a := opts.app
	root, err := registryRoot(a)
	// Outside every registry, your user-scope hooks route with the user
	// registry: check that one.
	if errors.Is(err, local.ErrNotRegistry) && useUserRegistry(a, "checking") {
		root, err = a.dir, nil
	}
	if err != nil {
		return notRegistry(a, err)
	}
	if was := local.LocalDirKind(root); was != "" {
		// A symlink or file in the place of .megagit/local: nothing opens
		// the registry through it.
		if !opts.fix {
			return doctorReport(a, opts, []doctor.Check{localDirCheck(root)})
		}
		_, moved, err := local.FixLocalDir(root)
		if err != nil {
			return fmt.Errorf("fix: %s: %w", local.MachineDir, err)
		}
		note := ""
		if rel, err := filepath.Rel(root, moved); moved != "" && err == nil {
			note = " (the file is now " + filepath.ToSlash(rel) + ")"
		}
		fmt.Fprintf(a.errOut, "megagit: fix: replaced %s, %s, with a folder%s\n", local.MachineDir, was, note)
	}
	journal := registry.JournalPending(root)
	e, err := a.open(nil) // finishes an interrupted write when no writer is alive
	if err != nil {
		return err
	}
	if opts.fix && e.Reg.InterruptedMoveToRef() {
		// An older megagit killed during `megagit layout ref` left the ref
		// layout without its commit: the move, run again, finishes it.
		fmt.Fprintf(a.errOut, "megagit: fix: finishing an interrupted `megagit layout ref`\n")
		if _, err := layoutRef(a, e); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
		if e, err = a.open(nil); err != nil { // with the new config's roots
			return err
		}
	}
	if opts.fix {
		if err := e.Repair(a.now(), a.say, adopt.Repair); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
	}
	timeout := opts.timeout
	if opts.offline {
		timeout = 0
	}
	checks := registryChecks(e.Reg)
	if user, _ := e.Personal(); user != nil {
		for _, c := range registryChecks(user.Reg) {
			if c.Status == doctor.Fail {
				c.Name = "user registry " + c.Name
				c.Detail = workspace.Describe(user.Reg.Root()) + ": " + c.Detail
				checks = append(checks, c)
			}
		}
	}
	if timeout > 0 {
		checks = append(checks, regsync.RemoteCheck(e.Reg, timeout))
	}
	if journal && !registry.JournalPending(root) {
		checks = append(checks, doctor.Check{Name: "recovery", Status: doctor.Warn,
			Detail: "an interrupted write (a killed megagit) was found and finished"})
	}
	checks = append(checks, cacheChecks(e)...)
	checks = append(checks, cacheCoverageCheck(e)...)
	checks = append(checks, settingsCheck(e), routeIndexCheck(e), serveCheck(e), sourcesCheck(e), trustCheck(e), adoptCheck(e), identityCheck(e.Reg), writableCheck(e.Reg))
	checks = append(checks, listingCheck(e), duplicatesCheck(e))
	checks = append(checks, install.DoctorCheck(e.Reg.WorkTree()), install.MCPDoctorCheck(e.Reg.WorkTree()))
	if home, err := os.UserHomeDir(); err == nil {
		if c, ok := install.UserHookCheck(home); ok {
			checks = append(checks, c)
		}
	}
	return doctorReport(a, opts, checks)
}

// doctorReport prints the checks and fails when one failed.
func doctorReport(a *app, opts *doctorOptions, checks []doctor.Check) error {
	failed := 0
	for _, c := range checks {
		if c.Status == doctor.Fail {
			failed++
		}
	}
	if opts.json {
		if err := printJSON(a.out, checks); err != nil {
			return err
		}
	} else {
		rows := make([][]string, len(checks))
		for i, c := range checks {
			rows[i] = []string{c.Status, c.Name, c.Detail, c.Hint}
		}
		if err := printTable(a.out, []string{"STATUS", "CHECK", "DETAIL", "HINT"}, rows); err != nil {
			return err
		}
	}
	if failed > 0 {
		return withHint(fmt.Errorf("%w: %d check(s) failed", errProblems, failed), doctorHint(checks))
	}
	return nil
}

// localDirCheck is the one check doctor runs when .megagit/local is not a
// folder (a symlink, a file): the others read the registry through it.
func localDirCheck(root string) doctor.Check {
	detail := strings.TrimPrefix(local.Open(root, 0).Check().Error(), errkind.ErrInvalid.Error()+": ")
	detail, _, _ = strings.Cut(detail, " (`megagit doctor --fix`")
	return doctor.Check{Name: "local state", Status: doctor.Fail, Detail: detail + "; the other checks run once it is one",
		Hint: "`megagit doctor --fix` replaces it with a folder (a file is kept beside it) and stops tracking it"}
}

// doctorHint is doctor's last word when checks failed: each failed check's
// hint says what repairs it; --fix is named only for the checks whose hint
// names it (it does not touch, say, the agents' settings files).
func doctorHint(checks []doctor.Check) string {
	var failed, fixed []string
	for _, c := range checks {
		if c.Status != doctor.Fail {
			continue
		}
		failed = append(failed, c.Name)
		if strings.Contains(c.Hint, "doctor --fix") {
			fixed = append(fixed, c.Name)
		}
	}
	hint := "the HINT column says how to repair each failed check (" + strings.Join(failed, ", ") + ")"
	if len(fixed) > 0 {
		hint += "; `megagit doctor --fix` repairs " + strings.Join(fixed, ", ")
	}
	return hint
}

// cacheChecks verifies each committed embedding cache: index.json reads
// and names the vectors.npy it was written with, and the array reads.
func cacheChecks(e *workspace.Workspace) []doctor.Check {
	dirs := e.CommittedCaches()
	if len(dirs) == 0 {
		return []doctor.Check{{Name: "cache", Status: doctor.OK, Detail: "no embedding cache committed"}}
	}
	var out []doctor.Check
	for _, d := range dirs {
		name := "cache " + d.Name
		if d.Err != nil {
			out = append(out, doctor.Check{Name: name, Status: doctor.Fail, Detail: d.Err.Error(),
				Hint: "run `megagit cache verify` for the exact fix (routing ignores a broken cache meanwhile)"})
			continue
		}
		out = append(out, doctor.Check{Name: name, Status: doctor.OK, Detail: "index.json matches vectors.npy"})
	}
	return out
}

// settingsCheck warns of the settings the registry's committed config
// sets but may not (config.Ignored): each file, and its keys.
func settingsCheck(w *workspace.Workspace) doctor.Check {
	const name = "settings"
	var files []string
	keys := map[string][]string{}
	for _, ig := range w.Cfg.Ignored {
		if keys[ig.File] == nil {
			files = append(files, ig.File)
		}
		keys[ig.File] = append(keys[ig.File], ig.Key)
	}
	if len(files) == 0 {
		return doctor.Check{Name: name, Status: doctor.OK, Detail: "the committed config names no library, program or folder of this machine"}
	}
	var parts []string
	for _, f := range files {
		parts = append(parts, fmt.Sprintf("%s sets %s", f, strings.Join(keys[f], ", ")))
	}
	return doctor.Check{Name: name, Status: doctor.Warn,
		Detail: strings.Join(parts, "; ") + ": a committed config may not name a library, program or folder of this machine, so megagit ignores them",
		Hint:   "remove them from the committed file; set them for this machine in .megagit/local/config.yaml (`megagit model use --dir DIR`), your user config or the environment"}
}

// routeIndexCheck says whether the compiled route index the prompt hook
// answers from is there, whole, and up to date with every skill.
func routeIndexCheck(w *workspace.Workspace) doctor.Check {
	const name = "route-index"
	fix := "`megagit index` (or `megagit doctor --fix`) rebuilds it; the prompt hook also does"
	c, ok := index.ReadCompiled(w.Reg.Local(), index.RankerKey(workspace.RankerConfig(w.Cfg)), index.Want{Bodies: true, Vectors: true, Fallback: true, Stamps: true})
	if !ok {
		if _, err := os.Stat(filepath.Join(w.Reg.LocalDir(), index.IndexFile)); errors.Is(err, os.ErrNotExist) {
			return doctor.Check{Name: name, Status: doctor.Warn, Detail: "no compiled route index yet", Hint: fix}
		}
		return doctor.Check{Name: name, Status: doctor.Warn, Detail: index.IndexFile + " is damaged or of another format: it is never read", Hint: fix}
	}
	key, err := index.SkillsKey(w.Reg.Root(), w.StampRoots())
	switch {
	case err != nil:
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error()}
	case c.Index == nil:
		return doctor.Check{Name: name, Status: doctor.Warn, Detail: "built with other ranker settings", Hint: fix}
	case c.Key != key:
		return doctor.Check{Name: name, Status: doctor.Warn, Detail: "out of date: a skill or ledger changed since it was built", Hint: fix}
	}
	if want := w.BuiltinKey(); want != "" && (c.Vectors == nil || c.Vectors.Key != want) {
		held := "no vectors"
		if c.Vectors != nil {
			held = "the vectors of " + c.Vectors.Key
		}
		return doctor.Check{Name: name, Status: doctor.Warn,
			Detail: fmt.Sprintf("out of date: it holds %s, not of the active model %s", held, want), Hint: fix}
	}
	detail := fmt.Sprintf("%d skills, lexical only", len(c.Docs))
	if c.Vectors != nil {
		detail = fmt.Sprintf("%d skills, vectors of %s", len(c.Docs), c.Vectors.Key)
	}
	if c.Fallback != nil {
		detail += fmt.Sprintf(" (and of %s for the prompt hook until megagit serve answers)", c.Fallback.Key)
	}
	return doctor.Check{Name: name, Status: doctor.OK, Detail: detail + ", up to date"}
}

// trustCheck names the skills megagit holds back (workspace.Hold), each
// with why and the way to allow it.
func trustCheck(w *workspace.Workspace) doctor.Check {
	const name = "trust"
	c, err := w.Catalog()
	if err != nil {
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error()}
	}
	var held []string
	for _, s := range c.Skills {
		if s.Untrusted != "" {
			held = append(held, s.Name+": "+s.Untrusted)
		}
	}
	if len(held) == 0 {
		return doctor.Check{Name: name, Status: doctor.OK, Detail: fmt.Sprintf("no skill held back (%d audited, installed skills match %s)", len(c.Skills), skillslock.File)}
	}
	return doctor.Check{Name: name, Status: doctor.Warn,
		Detail: fmt.Sprintf("%d skill(s) held back, never injected: %s", len(held), strings.Join(held, " | ")),
		Hint:   "read each with `megagit audit NAME`; install it again, remove it, or allow it with audit.allow in your own config (docs/safety.md)"}
}

// sourcesCheck lists where skills come from besides the registry, and
// warns about a source that cannot be read and about shadowed skills.
func sourcesCheck(w *workspace.Workspace) doctor.Check {
	const name = "sources"
	c, err := w.Catalog()
	if err != nil {
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error()}
	}
	count := map[string]int{}
	never, disabled, denied := 0, 0, 0
	for _, s := range c.Skills {
		count[s.Kind]++
		switch {
		case s.Evidence.Disabled != "":
			disabled++
		case s.Denied != "":
			denied++
		case s.UserOnly != "":
			never++
		}
	}
	detail := fmt.Sprintf("%d project, %d user, %d plugin, %d team skill(s)", count[workspace.KindProject], count[workspace.KindUser], count[workspace.KindPlugin], count[workspace.KindTeam])
	if never > 0 {
		detail += fmt.Sprintf(", %d never routed (user-only)", never)
	}
	if disabled > 0 {
		detail += fmt.Sprintf(", %d disabled", disabled)
	}
	if denied > 0 {
		detail += fmt.Sprintf(", %d denied by the config", denied)
	}
	var bad []string
	hint := "a name in two sources resolves to project, then user, then team; rename one, or turn a source off (sources.* in .megagit/config.yaml)"
	seen := map[string]bool{}
	if _, err := w.Team(); err != nil {
		bad = append(bad, err.Error())
		seen[err.Error()] = true
	}
	// Every SKILL.md route reads, and the files the agents' rules come
	// from (a SKILL.md that does not parse, a bad paths:, an unreadable
	// agents/openai.yaml or settings file), as lint reports them.
	lint, checked := w.Lint()
	detail += fmt.Sprintf("; %d SKILL.md file(s) checked", checked)
	for _, p := range lint {
		if p.Severity == skillfile.SeverityError && !seen[p.Message] {
			seen[p.Message] = true
			bad = append(bad, strings.TrimPrefix(fmt.Sprintf("%s: field %s: %s", p.File, p.Field, p.Message), ": field file: "))
		}
	}
	for _, s := range c.Shadowed {
		bad = append(bad, fmt.Sprintf("%s skill %s (%s) shadowed by %s (%s)", s.Kind, s.Name, workspace.Describe(s.AbsPath), workspace.Describe(s.ShadowedBy), w.ShadowSame(s, c)))
	}
	if diffs := w.PrecedenceDiffs(c); len(diffs) > 0 {
		for _, d := range diffs {
			bad = append(bad, d.String())
		}
		hint = "Claude Code puts personal skills over a project's, megagit the project's first: rename one of the two so both load the same skill; " + hint
	}
	if len(bad) > 0 {
		return doctor.Check{Name: name, Status: doctor.Warn, Detail: detail + "; " + strings.Join(bad, "; "), Hint: hint}
	}
	return doctor.Check{Name: name, Status: doctor.OK, Detail: detail}
}

// adoptCheck fails when a killed adopt or restore left a step unfinished
// (a skill may then be in two places, or only moved aside), and warns of
// originals moved aside that no list names, where restore never looks.
func adoptCheck(w *workspace.Workspace) doctor.Check {
	const name = "adopt"
	pending, strays, err := adopt.Problems(w)
	switch {
	case err != nil:
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error(), Hint: "fix or remove the file it names (it lists what `megagit adopt --restore` puts back)"}
	case len(pending) > 0:
		return doctor.Check{Name: name, Status: doctor.Fail,
			Detail: fmt.Sprintf("%d interrupted adopt or restore step(s): %s", len(pending), strings.Join(pending, ", ")),
			Hint:   "run `megagit doctor --fix` (or `megagit adopt --restore`): each switch ends written and journaled, or neither; each moved skill in the registry or back in its agent's folder"}
	case len(strays) > 0:
		return doctor.Check{Name: name, Status: doctor.Warn,
			Detail: fmt.Sprintf("%d skill folder(s) moved aside by adopt that no list of adopted skills names, so restore never puts them back: %s", len(strays), strings.Join(strays, ", ")),
			Hint:   "move each back into its agent's skill folder by hand if the registry lacks it, else delete it"}
	}
	if n, err := adopt.MovedSkills(w); err == nil && n > 0 {
		return doctor.Check{Name: name, Status: doctor.Warn,
			Detail: fmt.Sprintf("%d skill(s) an earlier megagit's adopt moved out of the agents' folders; adopt now leaves skills where they are", n),
			Hint:   "run `megagit doctor --fix` (or `megagit adopt`, which then hides them with the agents' settings): each goes back to its agent's folder"}
	}
	return doctor.Check{Name: name, Status: doctor.OK, Detail: "no adopt or restore step left unfinished"}
}

// listingCheck suggests adopt when the agents' own listings still carry
// more of the skills megagit routes than one prompt's injection may hold
// (route.budget): every prompt pays for that listing, and megagit would
// inject only the few a prompt needs.
func listingCheck(w *workspace.Workspace) doctor.Check {
	const name = "agents' listings"
	l, err := adopt.NativeListing(w)
	if err != nil {
		return doctor.Check{Name: name, Status: doctor.Warn, Detail: "could not tell what adopt would hide: " + err.Error()}
	}
	if l.Skills == 0 {
		return doctor.Check{Name: name, Status: doctor.OK, Detail: "no skill megagit routes is also in an agent's own listing"}
	}
	detail := fmt.Sprintf("the agents' own listings carry %d skill(s) megagit routes, about %d tokens in every prompt", l.Skills, l.Tokens)
	if l.Tokens <= w.Cfg.Route.Budget {
		return doctor.Check{Name: name, Status: doctor.OK, Detail: detail + fmt.Sprintf(", within one prompt's injection (route.budget %d)", w.Cfg.Route.Budget)}
	}
	var cmds []string
	if l.Project {
		cmds = append(cmds, "`megagit adopt`")
	}
	if l.User {
		cmds = append(cmds, "`megagit adopt --scope user`")
	}
	return doctor.Check{Name: name, Status: doctor.Warn,
		Detail: detail + fmt.Sprintf(", more than megagit injects at most (route.budget %d)", w.Cfg.Route.Budget),
		Hint:   strings.Join(cmds, " and ") + " hides them from the agents' listings with the agents' own settings (no file moves; the /NAME commands stay); megagit's hook then injects the few a prompt needs"}
}

// identityCheck fails when git has no identity to author commits with, or
// when verdicts of past sessions wait for one (the stop hook keeps them in
// .megagit/local/pending/ rather than drop them).
func identityCheck(reg *registry.Registry) doctor.Check {
	const name = "git identity"
	idErr := reg.HasIdentity()
	v, sessions := stop.Pending(reg.Local())
	switch {
	case idErr != nil && v > 0:
		return doctor.Check{Name: name, Status: doctor.Fail,
			Detail: fmt.Sprintf("none, and %d verdict(s) of %d session(s) wait for one", v, sessions),
			Hint:   "`git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`, then `megagit doctor --fix` records them"}
	case idErr != nil:
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: "none: verdicts cannot be committed (the stop hook keeps them until there is one)",
			Hint: "`git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`"}
	case v > 0:
		return doctor.Check{Name: name, Status: doctor.Fail,
			Detail: fmt.Sprintf("%d verdict(s) of %d session(s) are not recorded yet (there was no identity, or a skill had uncommitted edits: hook.log says which)", v, sessions),
			Hint:   "commit your edits to the skill if any, then `megagit doctor --fix` records them (the next stop hook also does)"}
	}
	return doctor.Check{Name: name, Status: doctor.OK, Detail: "commits are authored by your git identity"}
}

// writableCheck warns when the registry's .megagit/local cannot be written
// (a read-only mount): the prompt hook still routes, but remembers no
// session and logs no decision, and verdicts cannot be recorded.
func writableCheck(reg *registry.Registry) doctor.Check {
	const name = "writable"
	dir := reg.Local().Path()
	err := local.MkdirAll(dir)
	if err == nil {
		probe := filepath.Join(dir, ".doctor-writable")
		if err = local.WriteFileAtomic(probe, []byte("megagit doctor\n"), 0o600); err == nil {
			os.Remove(probe)
			return doctor.Check{Name: name, Status: doctor.OK, Detail: dir + " can be written"}
		}
	}
	if !local.IsReadOnly(err) {
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error()}
	}
	return doctor.Check{Name: name, Status: doctor.Warn,
		Detail: dir + " cannot be written (read-only): prompts are routed, but no session is remembered (a skill may be injected again), no decision is logged, and no verdict can be recorded",
		Hint:   "make the registry writable, or use a clone of it that is"}
}

// registryChecks are a registry's own checks, then its installs' (the
// lock against the skills).
func registryChecks(reg *registry.Registry) []doctor.Check {
	return append(reg.Doctor(), skillinstall.Check(reg))
}
