package adopt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/errkind"
	install "github.com/megagit/megagit/hook/install"
	"github.com/megagit/megagit/workspace"
)

// listers are the agents that list the skills of the native folder dir
// (absolute) to their model: Claude Code reads .claude/skills, Codex
// .agents/skills and ~/.codex/skills, Gemini CLI .gemini/skills and
// .agents/skills.
func listers(dir string) []string {
	d := filepath.ToSlash(dir)
	switch {
	case strings.HasSuffix(d, "/.claude/skills"):
		return []string{"claude"}
	case strings.HasSuffix(d, "/.agents/skills"):
		return []string{"codex", "gemini"}
	case strings.HasSuffix(d, "/.codex/skills"):
		return []string{"codex"}
	case strings.HasSuffix(d, "/.gemini/skills"):
		return []string{"gemini"}
	}
	return nil
}

// settingsFile is where adopt writes agent's switch for a skill of scope,
// relative to the project (or the home folder): Claude Code's user
// settings for a personal skill, the project's local settings (shared:
// its committed settings) for a project's; Gemini CLI's user or workspace
// settings; Codex's user config.toml, relative to the home folder for
// every scope (Codex reads skills.config from no project's file).
func settingsFile(agent, scope string, shared bool) string {
	switch {
	case agent == "codex":
		return ".codex/config.toml"
	case agent == "claude" && scope == workspace.KindProject && !shared:
		return ".claude/settings.local.json"
	case agent == "claude":
		return ".claude/settings.json"
	case agent == "gemini":
		return ".gemini/settings.json"
	}
	return ""
}

// claudeSet is the value a Claude Code settings file of this project (or
// the user's) gives name in skillOverrides, of the highest precedence,
// and that file ("" when none does).
func (w *space) claudeSet(name string) (value, file string) {
	for _, f := range w.ClaudeSettingsFiles() {
		_, data, err := install.ReadSettings(f)
		if err != nil || len(data) == 0 {
			continue
		}
		if v, err := install.ClaudeOverride(data, name); err == nil && v != "" {
			return v, f
		}
	}
	return "", ""
}

// planned is a switch adopt is to write, with the registry that journals
// it (nil: the user registry, which a dry run does not create).
type planned struct {
	workspace.Hidden
	reg       *space
	path      string
	skillPath string
}

// hide writes, for every skill of the scopes o asks for that megagit
// routes, the switch of each agent that lists it, so the agent's own
// listing no longer carries it. A skill the agent already keeps from the
// model (the user's choice), one o.Except names, one megagit does not
// route, and one whose switch the user set by hand are left alone, each
// with why; one adopt hid before is counted in res.Already. A Claude Code
// plugin's skill is always left (with the personal skills, scope user):
// Claude Code has no setting that hides it (plugin.go).
func (w *space) hide(o Options, res *Result) error {
	project, user := w.scopes(o)
	if w.IsUserRegistry() {
		project = false
	}
	c, err := w.Catalog()
	if err != nil {
		return err
	}
	rules, _ := w.AgentRules()
	var userReg *space
	if user {
		var u *workspace.Workspace
		if o.DryRun {
			u, err = w.Personal()
		} else {
			u, err = w.CreateUserRegistry()
		}
		if err != nil {
			return err
		}
		if u != nil {
			userReg = spaceOf(u)
		}
		if w.IsUserRegistry() {
			userReg = w
		}
	}
	except := map[string]bool{}
	for _, n := range o.Except {
		except[strings.ToLower(n)] = true
	}
	var plan []planned
	seen := map[string]bool{}
	var codex *codexConfig // read when a skill needs it
	all := append(append([]*workspace.Sourced{}, c.Skills...), c.Shadowed...)
	for _, s := range all {
		if s.Skill != nil && s.Kind == workspace.KindPlugin && user && (o.Agent == "" || o.Agent == "claude") && !seen["plugin\x00"+s.Name] {
			// Claude Code reads no setting that hides it (pluginNoSwitch):
			// nothing is written, and adopt says why. Its plugin is the
			// user's install, so it is reported with the personal skills.
			seen["plugin\x00"+s.Name] = true
			res.Skipped = append(res.Skipped, Skip{s.Name, filepath.Dir(s.AbsPath), pluginSkip(s, except, rules)})
			continue
		}
		if s.Skill == nil || s.Plugin != "" || s.Kind != workspace.KindProject && s.Kind != workspace.KindUser ||
			s.Kind == workspace.KindProject && !project || s.Kind == workspace.KindUser && !user {
			continue
		}
		skillDir := filepath.Dir(s.AbsPath)
		var agents []string
		for _, ag := range listers(filepath.Dir(skillDir)) {
			if o.Agent == "" || o.Agent == ag {
				agents = append(agents, ag)
			}
		}
		if len(agents) == 0 {
			continue
		}
		skip := func(why string) { res.Skipped = append(res.Skipped, Skip{s.Name, skillDir, why}) }
		switch {
		case excepted(except, s):
			skip("named by --except: left in the agents' own listing")
			continue
		case s.UserOnly != "":
			skip("already kept from the model by the agent's own rule (" + s.UserOnly + "): left alone, its command stays the user's")
			continue
		case !s.OfferedBeforeTrust():
			skip(s.NotRoutedWhy() + ": left in the agents' own listing, so it is not lost")
			continue
		}
		if b := audit.Blocking(audit.Skill(skillDir), o.Allow); len(b) > 0 {
			skip(auditRefusal(skillDir, b) + ": left in the agents' own listing (`--allow " + b[0].Rule + "` adopts it all the same)")
			continue
		}
		base, err := w.SwitchBase(s.Kind)
		if err != nil {
			return err
		}
		for _, ag := range agents {
			h := workspace.Hidden{Agent: ag, Scope: s.Kind, Name: s.Name, File: settingsFile(ag, s.Kind, o.Shared), Value: switches[ag].value}
			if ag == "codex" {
				h.Key = install.CanonicalPath(s.AbsPath)
				if !o.CodexDisable {
					if rules.OwnCodex(h.Key) && install.CodexDisabled(rules.CodexRules(), h.Key, s.Name) {
						res.Already++ // an earlier --codex-disable
					} else {
						skip(codexNoSwitch)
					}
					continue
				}
				if codex == nil {
					if codex, err = w.readCodexConfig(); err != nil {
						return err // nothing is written yet
					}
				}
				if codex.why != "" {
					skip(codex.why)
					continue
				}
				if why := codex.entryFor(h.Key, s.Name); why != "" {
					if rules.OwnCodex(h.Key) && install.CodexDisabled(codex.rules, h.Key, s.Name) {
						res.Already++
					} else {
						skip(why)
					}
					continue
				}
			}
			settingsBase, err := w.SettingsBase(h)
			if err != nil {
				return err
			}
			file := filepath.Join(settingsBase, filepath.FromSlash(h.File))
			key := ag + "\x00" + file + "\x00" + strings.ToLower(s.Name) + "\x00" + h.Key
			if seen[key] {
				continue
			}
			seen[key] = true
			if ag == "claude" {
				if v, f := w.claudeSet(s.Name); v != "" {
					if rules.Ours("claude", s.Name, f) {
						res.Already++
					} else {
						skip(fmt.Sprintf("skillOverrides already says %q for it in %s (your own setting): left alone", v, workspace.Describe(f)))
					}
					continue
				}
			}
			if ag == "gemini" && rules.Ours("gemini", s.Name, rules.GeminiDisabled(s.Name)) {
				res.Already++
				continue
			}
			reg := w
			if s.Kind == workspace.KindUser {
				reg = userReg
			}
			skillRel, err := filepath.Rel(base, s.AbsPath)
			if err != nil || !filepath.IsLocal(skillRel) {
				skillRel = s.AbsPath
			}
			_, statErr := os.Stat(file)
			h.Skill, h.Created = filepath.ToSlash(skillRel), errors.Is(statErr, fs.ErrNotExist)
			plan = append(plan, planned{Hidden: h, reg: reg, path: file, skillPath: s.AbsPath})
		}
	}
	sort.SliceStable(plan, func(i, j int) bool { return plan[i].Name < plan[j].Name })
	// Every file is checked before the first is written: one that does
	// not parse stops adopt with nothing changed.
	for _, p := range plan {
		if err := checkSwitch(p.Hidden, p.path); err != nil {
			return err
		}
	}
	for _, p := range plan {
		if !o.DryRun {
			if err := p.reg.writeSwitch(p.Hidden, p.path); err != nil {
				return err
			}
		}
		res.Hidden = append(res.Hidden, HiddenSwitch{Hidden: p.Hidden, Path: p.path, SkillPath: p.skillPath})
	}
	return nil
}

// writeSwitch journals h, writes it into file and marks it done, under
// the adopt lock of w (the registry journaling it).
func (w *space) writeSwitch(h workspace.Hidden, file string) error {
	lock, err := w.lockAdopt()
	if err != nil {
		return err
	}
	defer lock.Release()
	if _, err := w.recoverSwitches(); err != nil {
		return err
	}
	// The file as it is, journaled before it changes: a kill after the
	// write leaves a record restore can undo byte for byte. An edit that
	// cannot be made (a file that does not parse) is refused here, before
	// anything is written.
	if err := checkSwitch(h, file); err != nil {
		return err
	}
	all, err := w.Switches()
	if err != nil {
		return err
	}
	if _, data, err := install.ReadSettings(file); err == nil {
		if prev := lastFor(all, h); prev != nil && prev.State == "" && prev.After != "" && prev.After == sum(data) {
			h.Chained, h.Created = true, false // the file is as the previous switch left it
		} else if len(data) <= maxBefore {
			h.Before = string(data)
		}
	}
	h.State = workspace.StateHiding
	if err := w.journalSwitch(h, false); err != nil {
		return err
	}
	h, err = applySwitch(file, h, true)
	if err != nil {
		_, rerr := w.recoverSwitches()
		return errors.Join(err, rerr)
	}
	h.State = ""
	return w.journalSwitch(h, false)
}

// checkSwitch says whether h can be written into file: an error naming
// the file when it does not parse or the edit cannot be made safely.
func checkSwitch(h workspace.Hidden, file string) error {
	_, data, err := install.ReadSettings(file)
	if err != nil {
		return err
	}
	if _, err := switches[h.Agent].set(data, h.Selector()); err != nil {
		return fmt.Errorf("%w: %s: %v", errkind.ErrInvalid, file, err)
	}
	return nil
}

// show takes back the switches adopt wrote, of the scopes and agent o
// asks for, from this registry's journal and the user registry's: each
// whose settings file still says what adopt wrote is removed; one the
// user changed since is left as it is, with a note. Newest first.
func (w *space) show(o Options, res *Result) error {
	project, user := w.scopes(o)
	for _, ws := range w.adoptRegistries() {
		if err := ws.showFrom(o, project, user, res); err != nil {
			return err
		}
	}
	return nil
}

func (w *space) showFrom(o Options, project, user bool, res *Result) error {
	if !o.DryRun {
		lock, err := w.lockAdopt()
		if err != nil {
			return err
		}
		defer lock.Release()
		if _, err := w.recoverSwitches(); err != nil {
			return err
		}
	}
	all, err := w.Switches()
	if err != nil {
		return err
	}
	// chains are, by settings file, the chained switches (newest first)
	// whose file is still as the newest of them left it: they wait for
	// the start of their chain, which takes the file back in one write.
	chains := map[string][]workspace.Hidden{}
	for i := len(all) - 1; i >= 0; i-- {
		h := all[i]
		if !(h.Scope == workspace.KindProject && project || h.Scope == workspace.KindUser && user) || o.Agent != "" && o.Agent != h.Agent {
			res.Left[h.Scope]++
			continue
		}
		base, err := w.SwitchBase(h.Scope)
		if err != nil {
			return err
		}
		settingsBase, err := w.SettingsBase(h)
		if err != nil {
			return err
		}
		file := filepath.Join(settingsBase, filepath.FromSlash(h.File))
		skill := filepath.FromSlash(h.Skill)
		if !filepath.IsAbs(skill) {
			skill = filepath.Join(base, skill)
		}
		r := HiddenSwitch{Hidden: h, Path: file, SkillPath: skill}
		ours, now, err := switchState(file, h)
		if err != nil {
			return err
		}
		if !ours {
			r.Note = fmt.Sprintf("changed since adopt (now %q): left as it is", now)
			if now == "" {
				r.Note = "no longer set (removed by hand?): nothing to take back"
			}
		}
		res.Shown = append(res.Shown, r)
		if o.DryRun {
			continue
		}
		waiting := chains[file]
		if ours && h.Chained && (len(waiting) > 0 || fileSum(file) == h.After) {
			chains[file] = append(waiting, h) // the older record it follows takes the file back
			continue
		}
		delete(chains, file)
		if ours && len(waiting) > 0 && (h.Before != "" || h.Created) {
			// The chain's start: the file goes back as it found it, in one
			// write, journaled before and after as one step.
			chain := append(waiting, h)
			if err := w.journalMany(chain, workspace.StateShowing); err != nil {
				return err
			}
			if _, err := restoreChain(file, h); err != nil {
				_, rerr := w.recoverSwitches()
				return errors.Join(err, rerr)
			}
			if err := w.journalMany(chain, ""); err != nil {
				return err
			}
			continue
		}
		if err := w.dropSwitches(file, waiting, true); err != nil {
			return err
		}
		if err := w.dropSwitches(file, []workspace.Hidden{h}, ours); err != nil {
			return err
		}
	}
	// A chain whose start is not there to take the file back: each of its
	// keys removed.
	for file, waiting := range chains {
		if err := w.dropSwitches(file, waiting, true); err != nil {
			return err
		}
	}
	return nil
}

// dropSwitches removes each switch of hs from file (only when ours: it
// still says what adopt wrote), journaled as being shown before and
// dropped after, one by one.
func (w *space) dropSwitches(file string, hs []workspace.Hidden, ours bool) error {
	for _, h := range hs {
		h.State = workspace.StateShowing
		if err := w.journalSwitch(h, false); err != nil {
			return err
		}
		if ours {
			if _, err := applySwitch(file, h, false); err != nil {
				_, rerr := w.recoverSwitches()
				return errors.Join(err, rerr)
			}
		}
		if err := w.journalSwitch(h, true); err != nil {
			return err
		}
	}
	return nil
}

// journalMany marks every record of hs with state in one write of the
// journal (StateShowing), or drops them all ("").
func (w *space) journalMany(hs []workspace.Hidden, state string) error {
	all, err := w.Switches()
	if err != nil {
		return err
	}
	out := all[:0]
	for _, x := range all {
		in := false
		for _, h := range hs {
			if sameSwitch(x, h) {
				in = true
				break
			}
		}
		switch {
		case !in:
			out = append(out, x)
		case state != "":
			x.State = state
			out = append(out, x)
		}
	}
	return w.writeSwitches(out)
}

// fileSum is the sha256 of a settings file as it is ("" when it cannot be
// read).
func fileSum(file string) string {
	_, data, err := install.ReadSettings(file)
	if err != nil {
		return ""
	}
	return sum(data)
}

// auditRefusal says why the audit keeps a skill folder out: its first
// high finding, and how many more.
func auditRefusal(dir string, high []audit.Finding) string {
	f := high[0]
	msg := fmt.Sprintf("audit: %s:%d: %s (high): %s", workspace.Describe(filepath.Join(dir, filepath.FromSlash(f.File))), f.Line, f.Rule, f.Message)
	if n := len(high) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more high finding(s))", n)
	}
	return msg
}
