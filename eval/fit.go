package eval

import (
	"slices"

	"github.com/megagit/megagit/ranker"
)

// Gate fitting (`megagit eval --fit`): every query of one or more
// benchmarks is routed, and its ranking's signals become a sample for the
// abstention gate. A query with gold skills is a positive when one of them
// leads the ranking: the gate decides whether the leader is worth
// emitting, and it admits a backup only when the backup would pass as the
// leader. A null query is a negative. A query whose gold ranks lower
// teaches the gate nothing about abstaining and is left out: emitting for
// it injects the wrong skill first, abstaining loses a skill the ranking
// nearly found. (Positives used to be every query with its gold in the top
// ten: gates fitted that way abstained worse on prompts they were not
// fitted on.)

// GateSamples are rows' samples for ranker.FitGate, and how many rows were
// left out because no gold skill of theirs leads the ranking.
func GateSamples(rows []Row) (samples []ranker.GateSample, skipped int) {
	for _, r := range rows {
		if len(r.Gold) == 0 {
			samples = append(samples, ranker.GateSample{Signals: r.Signals})
			continue
		}
		if len(r.Ranked) == 0 || !slices.Contains(r.Gold, r.Ranked[0]) {
			skipped++
			continue
		}
		samples = append(samples, ranker.GateSample{Signals: r.Signals, Fits: true})
	}
	return samples, skipped
}
