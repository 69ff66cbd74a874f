// Package learn is everything megagit learns from use: the join of logged
// routing decisions (package decisionlog) with the verdicts their sessions
// left, the samples that re-fit dynamic K's thresholds (`megagit tune`) and
// the abstention gate (`megagit tune --gate`) from that join, the usage
// report of `megagit stats`, and the adaptation of the built-in model to
// one registry's helpful and harmful contexts (`megagit model adapt`). The
// models it fits are the ranker's (ranker.Tune, ranker.FitGate) and the
// static model's trainer (models/train); learn turns a registry's history
// into their samples. The implicit outcome of an injected skill (what the
// user and the shell said next) is the stop hook's (hook/stop), whose
// verdicts learn reads from the ledgers: no package under learn imports a
// package under hook.
package learn
