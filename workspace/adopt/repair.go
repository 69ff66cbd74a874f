package adopt

import (
	"time"

	"github.com/megagit/megagit/workspace"
)

// Repair is adopt's part of `megagit doctor --fix` (a workspace.Recovery,
// which workspace.Repair runs once the temp files and git locks a kill
// left are gone): the steps a killed adopt or restore left are finished
// (Recover), then the skills an earlier megagit's adopt moved go back to
// their agent's folder (MigrateMoved); fixed gets a line for each.
func Repair(w *workspace.Workspace, now time.Time, fixed func(line string)) error {
	notes, err := Recover(w)
	for _, n := range notes {
		fixed("interrupted adopt or restore: " + n)
	}
	if err != nil {
		return err
	}
	notes, err = MigrateMoved(w, Options{Now: now})
	for _, n := range notes {
		fixed("a skill an earlier megagit's adopt had moved: " + n)
	}
	return err
}

// The recovery workspace.Repair takes is this one.
var _ workspace.Recovery = Repair
