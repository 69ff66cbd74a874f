// Package train learns megagit's static embedding models: the Go
// trainer that builds them from text pairs (in-batch negatives,
// symmetric cross-entropy, Adam with a one-cycle schedule, resumable
// checkpoints), the pairs files it reads, and adapt, which fine-tunes a static
// model on one registry's verdicts. It imports models, never the other
// way round, so routing and the hooks link no trainer.
package train
