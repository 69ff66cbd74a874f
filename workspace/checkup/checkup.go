// Package checkup is `megagit doctor`'s checks of a workspace: each
// reads what one part of megagit keeps (the registry, its installs, the
// caches and route index, serve, the sources and what is held back,
// adopt's switches, the agents' settings) and says ok, warn or fail, with
// how to repair it. It changes nothing; the repairs are workspace.Repair
// and adopt.Repair.
package checkup

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
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/route/index"
	"github.com/megagit/megagit/route/serve"
	"github.com/megagit/megagit/skillfile"
	"github.com/megagit/megagit/workspace"
	"github.com/megagit/megagit/workspace/adopt"
)

// Options are what a checkup reaches beyond the machine.
type Options struct {
	// Remote bounds the check that the git remote answers (0: skipped).
	Remote time.Duration
	// Recovered says opening the registry finished an interrupted write
	// (a killed megagit's), which the checks then report.
	Recovered bool
}

// Run is every check `megagit doctor` makes of w, in the order it prints
// them: the registry's own (and the user registry's failures), the remote,
// the caches, settings, the route index, serve, sources, trust, adopt, the
// git identity, whether .megagit/local can be written, the agents'
// listings, duplicates, and megagit's entries in the agents' settings.
func Run(e *workspace.Workspace, opts Options) []doctor.Check {
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
	if opts.Remote > 0 {
		checks = append(checks, regsync.RemoteCheck(e.Reg, opts.Remote))
	}
	if opts.Recovered {
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
	return checks
}

// LocalDir is the one check doctor runs when .megagit/local is not a
// folder (a symlink, a file): the others read the registry through it.
func LocalDir(root string) doctor.Check {
	detail := strings.TrimPrefix(local.Open(root, 0).Check().Error(), errkind.ErrInvalid.Error()+": ")
	detail, _, _ = strings.Cut(detail, " (`megagit doctor --fix`")
	return doctor.Check{Name: "local state", Status: doctor.Fail, Detail: detail + "; the other checks run once it is one",
		Hint: "`megagit doctor --fix` replaces it with a folder (a file is kept beside it) and stops tracking it"}
}

// registryChecks are a registry's own checks, then its installs' (the
// lock against the skills).
func registryChecks(reg *registry.Registry) []doctor.Check {
	return append(reg.Doctor(), skillinstall.Check(reg))
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

// serveCheck says whether the registry's `megagit serve` runs (its pid,
// model and idle timeout), and why the last one the prompt hook started
// could not start, if it could not.
func serveCheck(w *workspace.Workspace) doctor.Check {
	const name = "serve"
	d := w.Reg.Local()
	info := d.FileLockState(serve.Lock)
	st, ok := serve.ReadState(d)
	by := ""
	if ok && st.Auto {
		by = ", started by the prompt hook"
	}
	if info.Held {
		detail := fmt.Sprintf("megagit serve (pid %d) runs", info.PID)
		switch {
		case !ok || st.PID != info.PID:
		case st.State == serve.Starting:
			detail = fmt.Sprintf("megagit serve (pid %d%s) is starting", info.PID, by)
		case st.State == serve.Serving:
			detail = fmt.Sprintf("megagit serve (pid %d%s) routes with %s; ", info.PID, by, st.Model)
			if st.Idle == "" || st.Idle == "0s" {
				detail += "it runs until stopped"
			} else {
				detail += "it stops after " + st.Idle + " without a request"
			}
		}
		return doctor.Check{Name: name, Status: doctor.OK, Detail: detail}
	}
	onnx := dense.UsesONNX(w.Cfg, w.Reg.Root())
	if ok && (st.State == serve.Failed || st.State == serve.Starting) {
		why := st.Error
		if why == "" {
			why = fmt.Sprintf("megagit serve (pid %d) exited while loading, before it answered", st.PID)
		}
		return doctor.Check{Name: name, Status: doctor.Warn,
			Detail: fmt.Sprintf("no megagit serve runs; the last one the prompt hook started could not start at %s: %s", st.Time, why),
			Hint: fmt.Sprintf("%s says more; the hook routes without the model until it is mended (it starts the server again once the model, ONNX Runtime or the config changes, or after %s)",
				filepath.Join(d.Path(), serve.Log), serve.RetryAfter)}
	}
	detail := "no megagit serve runs"
	switch {
	case onnx && w.Cfg.Hook.Serve == "off":
		detail += "; the prompt hook routes without the ONNX model (hook.serve: off)"
	case onnx:
		detail += "; the prompt hook starts one for the ONNX model"
	}
	return doctor.Check{Name: name, Status: doctor.OK, Detail: detail}
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

// duplicatesCheck warns of the pairs of routed skills that say the same
// thing (workspace.Duplicates), as lint reports them.
func duplicatesCheck(w *workspace.Workspace) doctor.Check {
	const name = "duplicates"
	c, err := w.Catalog()
	if err != nil {
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error()}
	}
	dups := w.Duplicates(c)
	if len(dups) == 0 {
		return doctor.Check{Name: name, Status: doctor.OK, Detail: "no two routed skills say the same thing"}
	}
	lines := make([]string, 0, len(dups))
	for _, d := range dups {
		lines = append(lines, fmt.Sprintf("%s (%s) and %s (%s): %s", d.Drop.Name, workspace.Describe(d.Drop.AbsPath),
			d.Keep.Name, workspace.Describe(d.Keep.AbsPath), d.Fix))
	}
	return doctor.Check{Name: name, Status: doctor.Warn,
		Detail: fmt.Sprintf("%d pair(s) of skills that say the same thing: %s", len(dups), strings.Join(lines, "; ")),
		Hint:   "keep one of each pair (the command after each), or add one to deny: in .megagit/config.yaml; `megagit lint` says why each pair matched"}
}

// cacheCoverageCheck says whether the committed embedding cache of the
// active model holds a row for every text routing embeds: each skill's
// description and name, and each helpful or harmful context and verdict
// reason it keeps. A cache that lacks rows still routes (the missing
// vectors are computed on each machine); `megagit embed` adds them.
func cacheCoverageCheck(e *workspace.Workspace) []doctor.Check {
	const name = "cache coverage"
	emb, _, err := dense.Load(e.Cfg, e.Reg.Root())
	if err != nil || emb == nil {
		return nil // lexical routing, or a model that does not load: other checks say so
	}
	cov, ok := e.CacheCoverage(emb)
	if !ok {
		return nil
	}
	lacking := append(append([]string{}, cov.Stale...), cov.Missing...)
	if len(lacking) == 0 {
		return []doctor.Check{{Name: name, Status: doctor.OK, Detail: fmt.Sprintf("every text of %d skill(s) has its vector", cov.Skills)}}
	}
	return []doctor.Check{{Name: name, Status: doctor.Warn,
		Detail: fmt.Sprintf("the committed cache of %s lacks vectors of %d skill(s): %s; routing computes them on each machine meanwhile",
			emb.ID(), len(lacking), strings.Join(lacking, ", ")),
		Hint: "run `megagit embed`, which adds the missing vectors and commits them (doctor --fix does not embed)"}}
}
