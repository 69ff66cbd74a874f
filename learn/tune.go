package learn

import (
	"slices"

	"github.com/megagit/megagit/decisionlog"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry/ledger"
)

// TuneCases keeps the decisions dynamic K decided (not no-match, fixed or
// the lexical fast path) with the configured model (not a fallback) and labels them from what the stop hook left
// (labeler.label). ranker.Tune re-fits K's thresholds from them.
//
// stopped reports whether a stop hook read a session (hook.SessionStopped
// over the registry's local folder): the session memory is the hook's
// file, so it comes in as a function and learn does not import hook.
func TuneCases(ds []decisionlog.Entry, ledgers map[string][]ledger.Entry, stopped func(session string) bool) []ranker.TuneCase {
	var out []ranker.TuneCase
	l := labeler{ledgers: ledgers, read: stopped, stopped: map[string]bool{}}
	for _, d := range ds {
		if len(d.Scores) == 0 || !ranker.KReason(d.Reason).Dynamic() || d.Fallback != "" {
			continue
		}
		c := ranker.TuneCase{Scores: d.Scores, ZTop1: d.ZTop1, ZEnt: d.ZEnt, Candidates: d.Candidates}
		c.Label, c.NeedK = l.label(d)
		out = append(out, c)
	}
	return out
}

// GateSamples are the logged decisions that emitted skills and that the
// session's verdicts label, as samples for ranker.FitGate: a decision whose
// first skill was judged HELPFUL fits, one whose skills were judged
// otherwise or went unused does not. As with benchmark prompts (eval's
// GateSamples), one helped only by a backup is left out, as are decisions
// that abstained (they carry no verdict), those logged before decisions
// kept their signals and those ranked without the configured model.
// stopped is as for TuneCases.
func GateSamples(ds []decisionlog.Entry, ledgers map[string][]ledger.Entry, stopped func(session string) bool) []ranker.GateSample {
	var out []ranker.GateSample
	l := labeler{ledgers: ledgers, read: stopped, stopped: map[string]bool{}}
	for _, d := range ds {
		if d.Signals == nil || d.Fallback != "" {
			continue // no signals kept, or not the configured model's
		}
		switch label, _ := l.label(d); label {
		case ranker.LabelHelpful:
			if slices.Contains(SessionVerdicts(d, l.ledgers)[d.Skills[0].Name], "HELPFUL") {
				out = append(out, ranker.GateSample{Signals: *d.Signals, Fits: true})
			}
		case ranker.LabelUnhelpful:
			out = append(out, ranker.GateSample{Signals: *d.Signals})
		}
	}
	return out
}

// labeler labels logged decisions from the sessions' verdicts.
type labeler struct {
	ledgers map[string][]ledger.Entry
	read    func(session string) bool // whether the stop hook read a session
	stopped map[string]bool           // read's answers, by session
}

// label is what d's session says of it: helpful at the rank (from 1) of
// a skill judged HELPFUL, unhelpful when a skill was judged otherwise or
// the stop hook read the session and found no help, else no label.
func (l labeler) label(d decisionlog.Entry) (label ranker.Label, needK int) {
	if len(d.Skills) == 0 || d.Session == "" || d.Shadow {
		return ranker.LabelNone, 0
	}
	v := SessionVerdicts(d, l.ledgers)
	judged := 0
	for i, s := range d.Skills {
		for _, word := range v[s.Name] {
			switch word {
			case "HELPFUL":
				label, needK = ranker.LabelHelpful, i+1
			case "HARMFUL", "NEUTRAL":
				judged++
			}
		}
	}
	if label != ranker.LabelNone {
		return label, needK
	}
	s, ok := l.stopped[d.Session]
	if !ok {
		s = l.read(d.Session)
		l.stopped[d.Session] = s
	}
	if judged > 0 || s {
		return ranker.LabelUnhelpful, 0
	}
	return ranker.LabelNone, 0
}
