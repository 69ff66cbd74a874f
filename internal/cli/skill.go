package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/skillfile"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

func newSkillCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "skill", Short: "Add, install, update, verify, list, rename, remove or disable skills"}
	cmd.Example = examples(
		`megagit skill add flaky-tests --description "Triage flaky CI tests."`, "a new skill",
		"megagit skill list", "every skill, its status and evidence",
		"megagit skill install acme/skills --all", "skills from a git repository",
		"megagit skill update --check", "whether installed skills have updates",
	)
	cmd.AddCommand(newSkillAddCmd(a, nil), newSkillListCmd(a, nil), newSkillShowCmd(a, nil),
		newSkillRmCmd(a, nil), newSkillMvCmd(a, nil), newSkillImportCmd(a, nil), newSkillInstallCmd(a, nil), newSkillUpdateCmd(a, nil), newSkillVerifyCmd(a, nil),
		newSkillSwitchCmd(a, true, nil), newSkillSwitchCmd(a, false, nil))
	return cmd
}

type skillAddOptions struct {
	app         *app
	name        string
	description string
	bodyFile    string
	json        bool
}

// newSkillAddCmd parses `megagit skill add` into options and hands
// them to runF, or to skillAddRun when runF is nil (tests pass a stub).
func newSkillAddCmd(a *app, runF func(*skillAddOptions) error) *cobra.Command {
	opts := &skillAddOptions{app: a}
	cmd := &cobra.Command{
		Use:   "add NAME --description TEXT [--body-file F]",
		Short: "Create skills/NAME/SKILL.md in one commit",
		Example: examples(
			`megagit skill add flaky-tests --description "Triage flaky CI tests."`, "a new skill, one commit",
			`megagit skill add pdf-forms --description "Fill PDF forms." --body-file -`, "its instructions from stdin",
		),
		Args: exactArgs(1, "a skill NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			return orRun(runF, skillAddRun)(opts)
		},
	}
	cmd.Flags().StringVar(&opts.description, "description", "", "what the skill does and when to use it (required)")
	cmd.Flags().StringVar(&opts.bodyFile, "body-file", "", "Markdown `FILE` for the body (- for stdin)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: name, path, commit")
	return cmd
}

func skillAddRun(opts *skillAddOptions) error {
	var body string
	switch opts.bodyFile {
	case "":
	case "-":
		data, err := local.ReadCapped(opts.app.in, "the body on stdin", skillfile.MaxSize)
		if err != nil {
			return err
		}
		body = string(data)
	default:
		data, err := local.ReadRegular(opts.bodyFile, skillfile.MaxSize)
		if err != nil {
			return fmt.Errorf("--body-file: %w", err)
		}
		body = string(data)
	}
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	path, hash, err := e.Reg.AddSkill(opts.name, opts.description, body)
	if err != nil {
		return err
	}
	opts.app.say(fmt.Sprintf("megagit: added %s (commit %s)", path, hash.String()[:12]))
	if opts.json {
		return printJSON(opts.app.out, map[string]string{"name": opts.name, "path": path, "commit": hash.String()})
	}
	return nil
}

type skillListOptions struct {
	app  *app
	json bool
}

// newSkillListCmd parses `megagit skill list` into options and hands
// them to runF, or to skillListRun when runF is nil (tests pass a stub).
func newSkillListCmd(a *app, runF func(*skillListOptions) error) *cobra.Command {
	opts := &skillListOptions{app: a}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List skills with their status and evidence",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return orRun(runF, skillListRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

// skillJSON is the stable JSON shape of a skill.
type skillJSON struct {
	Name               string   `json:"name"`
	Path               string   `json:"path"`
	Description        string   `json:"description"`
	Status             string   `json:"status"`
	HelpfulCount       int      `json:"helpful_count"`
	HarmfulCount       int      `json:"harmful_count"`
	ConsecutiveHarmful int      `json:"consecutive_harmful"`
	TrajectoryWeight   float64  `json:"trajectory_weight"`
	ImplicitOutcomes   int      `json:"implicit_outcomes"`
	SilentStreak       int      `json:"silent_streak"`
	HelpfulContexts    []string `json:"helpful_contexts"`
	HarmfulContexts    []string `json:"harmful_contexts"`
	LastSessionID      string   `json:"last_session_id,omitempty"`
	LastUpdated        string   `json:"last_updated,omitempty"`
	// Source is project, user or team; Folder the folder holding the
	// skill's folder; ShadowedBy, for a skill not used, the SKILL.md of
	// the one of the same name that is.
	Source     string `json:"source,omitempty"`
	Folder     string `json:"folder,omitempty"`
	ShadowedBy string `json:"shadowed_by,omitempty"`
	// Plugin is a plugin skill's plugin (name@marketplace).
	Plugin string `json:"plugin,omitempty"`
	// UserOnly is set when the agent keeps the skill from the model (it is
	// the user's to run), and UserOnlyWhy says which rule; NotRouted says
	// why a skill whose rules cannot be read is not routed; Paths are the
	// globs that limit where it is routed.
	UserOnly    bool     `json:"user_only,omitempty"`
	UserOnlyWhy string   `json:"user_only_why,omitempty"`
	NotRouted   string   `json:"not_routed,omitempty"`
	Paths       []string `json:"paths,omitempty"`
	// Origin is where the skill was installed from (`skill install`: the
	// source's URL or path, without secrets), or "local".
	Origin string `json:"origin,omitempty"`
	// Disabled is set when the skill was turned off (megagit skill
	// disable), DisabledWhy the reason given; Denied is the config's deny:
	// entry that names it. Either way it is never injected.
	Disabled    bool   `json:"disabled,omitempty"`
	DisabledWhy string `json:"disabled_why,omitempty"`
	Denied      string `json:"denied,omitempty"`
	// Forced is the config's force: entry that names it.
	Forced string `json:"forced,omitempty"`
	// HeldBack says why megagit holds the skill back (a high audit
	// finding, files that differ from the lock), Hold the details: never
	// injected until the user's own config allows it.
	HeldBack string          `json:"held_back,omitempty"`
	Hold     *workspace.Hold `json:"hold,omitempty"`
}

// origins reads each registry's skills.lock once, to say where each skill
// was installed from.
type origins map[*registry.Registry]skillslock.Lock

// of is a skill's origin: its registry's lock entry's source, else
// "local" (made here, imported, adopted, or an agent's own).
func (o origins) of(s *workspace.Sourced) string {
	if s.Owner == nil || s.NativeKey != "" || s.Plugin != "" {
		return "local"
	}
	lock, ok := o[s.Owner]
	if !ok {
		lock, _ = s.Owner.ReadLock() // an unreadable lock: every skill reads as local, lint says why
		o[s.Owner] = lock
	}
	if e, ok := lock.Skills[s.Name]; ok {
		return gitauth.Redact(e.Source)
	}
	return "local"
}

// sourcedJSON is toJSON with where the skill comes from and the agents'
// rules on it.
func sourcedJSON(s *workspace.Sourced) skillJSON {
	j := toJSON(s.Skill)
	j.Source, j.Folder, j.ShadowedBy, j.Plugin = s.Kind, s.Folder, s.ShadowedBy, s.Plugin
	j.UserOnly, j.UserOnlyWhy, j.NotRouted, j.Paths = s.UserOnly != "", s.UserOnly, s.Held, s.Paths
	j.Disabled, j.DisabledWhy, j.Denied = s.Evidence.Disabled != "", s.Evidence.Disabled, s.Denied
	j.Forced = s.Forced
	j.HeldBack, j.Hold = s.Untrusted, s.Hold
	return j
}

// statusCell is the STATUS column: the evidence's status, and whether the
// skill is never routed (user-only, or rules that cannot be read).
func statusCell(s *workspace.Sourced) string {
	switch {
	case workspace.ArchivedByLedger(s.Evidence, s.Ledger):
		return "archived (by its ledger; mega_meta says " + string(s.Evidence.Status) + ")"
	case s.Evidence.Disabled != "":
		return string(s.Evidence.Status) + " (disabled)"
	case s.Denied != "":
		return string(s.Evidence.Status) + " (denied)"
	case s.UserOnly != "":
		return string(s.Evidence.Status) + " (user-only)"
	case s.Held != "":
		return string(s.Evidence.Status) + " (not routed)"
	case s.Untrusted != "":
		return string(s.Evidence.Status) + " (held back)"
	}
	return string(s.Evidence.Status)
}

// sourceCell is the SOURCE column: the kind, and whether it is shadowed.
func sourceCell(s *workspace.Sourced) string {
	if s.ShadowedBy != "" {
		return s.Kind + " (shadowed)"
	}
	return s.Kind
}

func toJSON(s *registry.Skill) skillJSON {
	ev := s.Evidence
	j := skillJSON{
		Name: s.Name, Path: s.Path, Description: s.File.Description(), Status: string(ev.Status),
		HelpfulCount: ev.HelpfulCount, HarmfulCount: ev.HarmfulCount, ConsecutiveHarmful: ev.ConsecutiveHarmful,
		TrajectoryWeight: ev.TrajectoryWeight, ImplicitOutcomes: ev.ImplicitOutcomes,
		SilentStreak: ev.SilentStreak, HelpfulContexts: nonNil(ev.HelpfulContexts), HarmfulContexts: nonNil(ev.HarmfulContexts),
		LastSessionID: ev.LastSessionID,
	}
	if !ev.LastUpdated.IsZero() {
		j.LastUpdated = ev.LastUpdated.UTC().Format(time.RFC3339)
	}
	return j
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func skillListRun(opts *skillListOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	c, err := e.Catalog()
	if err != nil {
		return err
	}
	opts.app.warnProblems(c.Problems)
	all := append(append([]*workspace.Sourced(nil), c.Skills...), c.Shadowed...)
	from := origins{}
	if opts.json {
		out := make([]skillJSON, 0, len(all))
		for _, s := range all {
			j := sourcedJSON(s)
			j.Origin = from.of(s)
			out = append(out, j)
		}
		return printJSON(opts.app.out, out)
	}
	rows := make([][]string, 0, len(all))
	for _, s := range all {
		ev := s.Evidence
		rows = append(rows, []string{s.Name, statusCell(s), strconv.Itoa(ev.HelpfulCount), strconv.Itoa(ev.HarmfulCount),
			strconv.Itoa(ev.ConsecutiveHarmful), strconv.FormatFloat(ev.WeightMultiplier(), 'f', 2, 64), from.of(s), sourceCell(s), workspace.Describe(s.Path)})
	}
	return printTable(opts.app.out, []string{"NAME", "STATUS", "HELPFUL", "HARMFUL", "STREAK", "WEIGHT", "ORIGIN", "SOURCE", "PATH"}, rows)
}

func (a *app) warnProblems(problems []error) {
	for _, p := range problems {
		fmt.Fprintf(a.errOut, "megagit: warning: %s (run megagit lint)\n", shownLines(p.Error()))
	}
}

type skillShowOptions struct {
	app  *app
	name string
	json bool
}

// newSkillShowCmd parses `megagit skill show` into options and hands
// them to runF, or to skillShowRun when runF is nil (tests pass a stub).
func newSkillShowCmd(a *app, runF func(*skillShowOptions) error) *cobra.Command {
	opts := &skillShowOptions{app: a}
	cmd := &cobra.Command{
		Use:               "show NAME",
		Short:             "Show one skill's evidence",
		Args:              exactArgs(1, "a skill NAME"),
		ValidArgsFunction: completeSkillArg(a, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			return orRun(runF, skillShowRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func skillShowRun(opts *skillShowOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	s, err := e.Skill(opts.name)
	if err != nil {
		return err
	}
	j := sourcedJSON(s)
	j.Origin = origins{}.of(s)
	if opts.json {
		return printJSON(opts.app.out, j)
	}
	w := opts.app.out
	fmt.Fprintf(w, "name:                %s\n", shown(j.Name))
	fmt.Fprintf(w, "path:                %s\n", shown(j.Path))
	fmt.Fprintf(w, "source:              %s (%s)\n", j.Source, shown(workspace.Describe(j.Folder)))
	fmt.Fprintf(w, "origin:              %s\n", shown(j.Origin))
	fmt.Fprintf(w, "description:         %s\n", shown(j.Description))
	fmt.Fprintf(w, "status:              %s\n", j.Status)
	if j.Plugin != "" {
		fmt.Fprintf(w, "plugin:              %s\n", shown(j.Plugin))
	}
	if j.Disabled {
		fmt.Fprintf(w, "disabled:            %s\n", shown(j.DisabledWhy))
	}
	if j.Denied != "" {
		fmt.Fprintf(w, "denied:              by deny: %s in the config\n", shown(j.Denied))
	}
	if j.Forced != "" {
		fmt.Fprintf(w, "forced:              by force: %s in the config\n", shown(j.Forced))
	}
	if j.HeldBack != "" {
		fmt.Fprintf(w, "held back:           %s\n", shown(j.HeldBack))
	}
	if j.UserOnly {
		fmt.Fprintf(w, "user-only:           %s\n", shown(j.UserOnlyWhy))
	}
	if j.NotRouted != "" {
		fmt.Fprintf(w, "not routed:          %s\n", shown(j.NotRouted))
	}
	if len(j.Paths) > 0 {
		fmt.Fprintf(w, "paths:               %s\n", shown(strings.Join(j.Paths, ", ")))
	}
	fmt.Fprintf(w, "helpful_count:       %d\n", j.HelpfulCount)
	fmt.Fprintf(w, "harmful_count:       %d\n", j.HarmfulCount)
	fmt.Fprintf(w, "consecutive_harmful: %d\n", j.ConsecutiveHarmful)
	fmt.Fprintf(w, "trajectory_weight:   %.4g\n", j.TrajectoryWeight)
	for _, c := range j.HelpfulContexts {
		fmt.Fprintf(w, "helpful_context:     %s\n", shown(c))
	}
	for _, c := range j.HarmfulContexts {
		fmt.Fprintf(w, "harmful_context:     %s\n", shown(c))
	}
	if j.LastUpdated != "" {
		fmt.Fprintf(w, "last_updated:        %s\n", j.LastUpdated)
	}
	return nil
}
