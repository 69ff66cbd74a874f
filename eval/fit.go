package eval

import (
	"slices"

	"github.com/megagit/megagit/ranker"
)

// Gate fitting (`megagit eval --fit`): every query of one or more
// benchmarks is routed, and its ranking's signals become a sample for the
// abstention gate. A query with gold skills is a positive when one of them
// ranks in the top ten (something fitting can be emitted); a null query is
// a negative; a query whose gold ranks lower teaches the gate nothing about
// abstaining and is left out.

// GateSamples are rows' samples for ranker.FitGate, and how many rows were
// left out because their gold skills rank below the top ten.
func GateSamples(rows []Row) (samples []ranker.GateSample, skipped int) {
	for _, r := range rows {
		if len(r.Gold) == 0 {
			samples = append(samples, ranker.GateSample{Signals: r.Signals})
			continue
		}
		if !goldRanked(r) {
			skipped++
			continue
		}
		samples = append(samples, ranker.GateSample{Signals: r.Signals, Fits: true})
	}
	return samples, skipped
}

// goldRanked reports whether a gold skill of r is in its top ten.
func goldRanked(r Row) bool {
	for _, g := range r.Gold {
		if slices.Contains(r.Ranked[:min(10, len(r.Ranked))], g) {
			return true
		}
	}
	return false
}
