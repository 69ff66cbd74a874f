package workspace

import (
	"github.com/megagit/megagit/decisionlog"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/registry/ledger"
)

// Decisions are the prompt hook's decision log, oldest first.
func (w *Workspace) Decisions() ([]decisionlog.Entry, error) {
	return decisionlog.Read(w.Reg.Local())
}

// DecisionLog is the decision log with what labels its decisions (learn
// replays them): every skill's ledger, and whether a stop hook read a
// session, from the session memory the hooks keep in the registry's local
// folder (a skill of a stopped session with no verdict went unused).
type DecisionLog struct {
	Decisions []decisionlog.Entry
	Ledgers   map[string][]ledger.Entry
	Stopped   func(session string) bool
}

// DecisionLog reads the decision log and its labels.
func (w *Workspace) DecisionLog() (*DecisionLog, error) {
	ds, err := w.Decisions()
	if err != nil {
		return nil, err
	}
	ledgers, err := w.Reg.Ledgers()
	if err != nil {
		return nil, err
	}
	dir := w.Reg.Local()
	return &DecisionLog{Decisions: ds, Ledgers: ledgers,
		Stopped: func(session string) bool { return hook.SessionStopped(dir, session) }}, nil
}
