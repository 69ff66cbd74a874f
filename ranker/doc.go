// Package ranker routes a prompt to the few skills that help with it, or to
// none, and explains why.
//
// It is a pure core: callers hand it skill values and a query and get back
// values. It never reads files, the clock or the environment, and
// every ordering is broken by skill id so output never depends on map order.
//
// The pipeline:
//
//  1. Relevance: BM25F over a skill's name, description, body headings,
//     trigger lines and helpful contexts, divided by the query's maximum
//     attainable BM25F score so it lies in [0, 1] and compares across
//     queries; optionally fused with a dense (embedding) score.
//  2. Evidence blend: relevance plus bounded count, context and
//     related-verdict terms, times the trajectory weight and the status
//     multiplier. Archived skills score -1 and are never emitted.
//  3. Dynamic K from the shape of the top-20 final scores, with an
//     absolute floor, plus the optional dominant-lexical-winner fast path.
//  4. MMR (lambda 0.7) over the emitted skills, dropping near-duplicates
//     (by the model's cosine of their stored vectors when routing has one:
//     Options.Similar; else by their TF-IDF vectors).
//  5. Rendering inside a token budget, as a catalog or a composition.
//
// Metrics implements the benchmark definitions used by `megagit eval`.
package ranker
