package inject

import (
	"time"

	"github.com/megagit/megagit/decisionlog"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
)

// sessionMaxAge is how long an idle session's memory is kept.
const sessionMaxAge = 30 * 24 * time.Hour

// savePromptSession saves a session's memory without waiting for the
// disk: it is per-machine state (a crash loses at most a repeated skill
// body or the verdicts of one prompt), and an fsync on every prompt costs
// the hook milliseconds on a busy disk.
func savePromptSession(dir local.Dir, s *hook.Session, now time.Time) error {
	s.Updated = now.UTC().Format(time.RFC3339)
	data, err := s.Marshal()
	if err != nil {
		return err
	}
	if err := dir.WriteCache(hook.SessionFile(s.ID), data); err != nil {
		return err
	}
	// Housekeeping, at most once a day: sessions idle for 30 days go.
	_, _ = dir.Prune(hook.SessionDir, sessionMaxAge, time.Now())
	return nil
}

// decisionRecord is the decision-log line of one prompt.
func decisionRecord(agent string, in hook.Input, s *Settings, docs []ranker.Doc, rr route.Result, injected []int, already []string, now time.Time) decisionlog.Entry {
	d := decisionlog.Entry{
		Time: now.UTC().Format(time.RFC3339Nano), Session: in.SessionID, Agent: agent,
		PromptSHA: decisionlog.PromptHash(in.Prompt), Terms: topTerms(in.Prompt, 8),
		K: len(injected) + len(already), Reason: string(rr.Res.Reason),
		ZTop1: ranker.Round4(rr.Res.Decision.ZTop1), ZEnt: ranker.Round4(rr.Res.Decision.ZEnt),
		Shadow: s.Shadow, Skills: []decisionlog.Skill{}, Candidates: rr.Candidates, Served: rr.Served, Fallback: rr.Fallback,
	}
	if s.LogPrompts {
		d.Prompt = in.Prompt
	}
	if sig := rr.Res.Signals; sig.Skills > 0 {
		d.Signals = &sig
	}
	score := make([]float64, len(docs)) // by doc
	for _, b := range rr.Res.Ranked {
		score[b.Doc] = b.Final
		if b.Archived() {
			continue
		}
		if len(d.Scores) < 20 {
			d.Scores = append(d.Scores, ranker.Round4(b.Final))
		}
	}
	for _, i := range injected {
		d.Skills = append(d.Skills, decisionlog.Skill{Name: docs[i].ID, Score: ranker.Round4(score[i]), New: true})
	}
	for _, name := range already {
		for i, doc := range docs {
			if doc.ID == name {
				d.Skills = append(d.Skills, decisionlog.Skill{Name: name, Score: ranker.Round4(score[i])})
			}
		}
	}
	return d
}

// topTerms are the prompt's first distinct index terms (stemmed, no stop
// words): enough to recognise a decision without storing the prompt.
func topTerms(prompt string, n int) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, t := range ranker.Tokenize(prompt) {
		if !seen[t] && len(out) < n {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
