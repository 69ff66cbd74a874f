package learn

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/megagit/megagit/decisionlog"
	"github.com/megagit/megagit/registry/ledger"
)

// Usage statistics (`megagit stats`): the decision log says which skills
// the prompt hook injected and when, the ledgers what came of them, both
// within one window of time.

// SkillStats is one skill's use in the window.
type SkillStats struct {
	Name string `json:"name"`
	// Injected counts the prompt-hook decisions that injected it in full
	// (not a shadow decision's, not a name-only reminder of a skill the
	// session already had); LastInjected is the last one's time.
	Injected     int    `json:"injected"`
	LastInjected string `json:"last_injected,omitempty"`
	// Helpful, Harmful and Neutral are its explicit verdicts.
	Helpful int `json:"helpful"`
	Harmful int `json:"harmful"`
	Neutral int `json:"neutral"`
	// Positive and Negative count its implicit outcomes by sign (a zero
	// one counts in neither), Silent its silent sessions (implicit outcomes
	// with no signal at all: injected and never used).
	Positive int `json:"implicit_positive"`
	Negative int `json:"implicit_negative"`
	Silent   int `json:"implicit_silent"`
	// HelpfulRate is Helpful over Helpful + Harmful (nil without either).
	HelpfulRate *float64 `json:"helpful_rate,omitempty"`
	// SilentStreak is its evidence's silent sessions in a row, now.
	SilentStreak int `json:"silent_streak"`
	// Unused: injected in the window, and neither a verdict nor an outcome
	// with a signal came of it. NeverInjected: not injected in the window.
	Unused        bool `json:"unused"`
	NeverInjected bool `json:"never_injected"`
	// Disabled is set when the skill is turned off (it cannot be injected).
	Disabled bool `json:"disabled,omitempty"`
	// Daily counts its injections per day (UTC, "2006-01-02"), for charts.
	Daily map[string]int `json:"-"`
}

// Pair is two skills injected by the same prompt, and how often.
type Pair struct {
	A     string `json:"a"`
	B     string `json:"b"`
	Count int    `json:"count"`
}

// Stats is the usage report over a window.
type Stats struct {
	// Since is the window's start (zero: all of the log).
	Since time.Time `json:"-"`
	// Decisions counts the prompt-hook decisions in the window, Injecting
	// those that injected at least one skill.
	Decisions int          `json:"decisions"`
	Injecting int          `json:"injecting"`
	Skills    []SkillStats `json:"skills"`
	// Pairs are the pairs most often injected together, most first.
	Pairs []Pair `json:"pairs"`
	// Days are the window's days with a decision, in order, and PerDay
	// the injections on each (all skills).
	Days   []string `json:"-"`
	PerDay []int    `json:"-"`
	// all are every pair, for Only.
	all []Pair
}

// StatsSkill is one skill the report covers: its name, ledger and
// evidence as the catalog reads them.
type StatsSkill struct {
	Name         string
	Ledger       []ledger.Entry
	SilentStreak int
	Disabled     bool
}

// MaxPairs is how many pairs a report keeps.
const MaxPairs = 10

// ComputeStats reports the use of skills (sorted by name; a skill the log
// names that is not among them is reported too) from the decisions and
// ledgers at or after since (zero: all).
func ComputeStats(skills []StatsSkill, decisions []decisionlog.Entry, since time.Time) Stats {
	st := Stats{Since: since}
	by := map[string]*SkillStats{}
	get := func(name string) *SkillStats {
		if s, ok := by[name]; ok {
			return s
		}
		s := &SkillStats{Name: name, Daily: map[string]int{}}
		by[name] = s
		return s
	}
	for _, sk := range skills {
		s := get(sk.Name)
		s.SilentStreak, s.Disabled = sk.SilentStreak, sk.Disabled
		for _, en := range sk.Ledger {
			if en.Action != "" || !since.IsZero() && en.Time().Before(since) {
				continue
			}
			switch {
			case en.Source == ledger.SourceImplicit && strings.HasPrefix(en.Reason, ledger.SilentReason):
				s.Silent++
			case en.Source == ledger.SourceImplicit && en.Outcome > 0:
				s.Positive++
			case en.Source == ledger.SourceImplicit && en.Outcome < 0:
				s.Negative++
			case en.Source == ledger.SourceImplicit:
			case en.Verdict == "HELPFUL":
				s.Helpful++
			case en.Verdict == "HARMFUL":
				s.Harmful++
			case en.Verdict == "NEUTRAL":
				s.Neutral++
			}
		}
	}
	pairs := map[[2]string]int{}
	perDay := map[string]int{}
	for _, d := range decisions {
		at, err := time.Parse(time.RFC3339Nano, d.Time)
		if err != nil || !since.IsZero() && at.Before(since) {
			continue
		}
		st.Decisions++
		var injected []string
		for _, sk := range d.Skills {
			if sk.New && !d.Shadow && !slices.Contains(injected, sk.Name) {
				injected = append(injected, sk.Name)
			}
		}
		day := at.UTC().Format(time.DateOnly)
		if _, ok := perDay[day]; !ok {
			perDay[day] = 0
		}
		if len(injected) == 0 {
			continue
		}
		st.Injecting++
		slices.Sort(injected)
		for i, name := range injected {
			s := get(name)
			s.Injected++
			s.Daily[day]++
			perDay[day]++
			if s.LastInjected == "" || at.After(mustTime(s.LastInjected)) {
				s.LastInjected = at.UTC().Format(time.RFC3339)
			}
			for _, other := range injected[i+1:] {
				pairs[[2]string{name, other}]++
			}
		}
	}
	for _, s := range by {
		if judged := s.Helpful + s.Harmful; judged > 0 {
			r := float64(s.Helpful) / float64(judged)
			s.HelpfulRate = &r
		}
		s.NeverInjected = s.Injected == 0
		s.Unused = s.Injected > 0 && s.Helpful+s.Harmful+s.Neutral+s.Positive+s.Negative == 0
		st.Skills = append(st.Skills, *s)
	}
	slices.SortFunc(st.Skills, func(a, b SkillStats) int { return strings.Compare(a.Name, b.Name) })
	for p, n := range pairs {
		st.Pairs = append(st.Pairs, Pair{A: p[0], B: p[1], Count: n})
	}
	slices.SortFunc(st.Pairs, func(a, b Pair) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.A, b.A), strings.Compare(a.B, b.B))
	})
	st.all = st.Pairs
	if len(st.Pairs) > MaxPairs {
		st.Pairs = st.Pairs[:MaxPairs:MaxPairs]
	}
	if st.Pairs == nil {
		st.Pairs = []Pair{}
	}
	if st.Skills == nil {
		st.Skills = []SkillStats{}
	}
	for day := range perDay {
		st.Days = append(st.Days, day)
	}
	slices.Sort(st.Days)
	for _, day := range st.Days {
		st.PerDay = append(st.PerDay, perDay[day])
	}
	return st
}

func mustTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

// Only keeps the named skill's figures, and the pairs it is in.
func (st Stats) Only(name string) Stats {
	out := st
	out.Skills = []SkillStats{}
	for _, s := range st.Skills {
		if s.Name == name {
			out.Skills = append(out.Skills, s)
		}
	}
	out.Pairs = []Pair{}
	for _, p := range st.all {
		if (p.A == name || p.B == name) && len(out.Pairs) < MaxPairs {
			out.Pairs = append(out.Pairs, p)
		}
	}
	return out
}
