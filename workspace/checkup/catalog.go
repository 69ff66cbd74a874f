package checkup

import (
	"fmt"
	"strings"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/skillfile"
	"github.com/megagit/megagit/workspace"
	"github.com/megagit/megagit/workspace/adopt"
)

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
