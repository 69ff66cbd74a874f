// Package doctor is the shape of a `megagit doctor` finding, shared by
// every package that checks something (the registry, the hooks, the
// remote, the models): a leaf, so reporting a check links nothing else.
package doctor

// Statuses: ok, warn (works, but look at it), fail (broken: doctor exits
// non-zero).
const (
	OK   = "ok"
	Warn = "warn"
	Fail = "fail"
)

// Check is one finding.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Hint   string `json:"hint,omitempty"`
}
