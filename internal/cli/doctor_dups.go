package cli

import (
	"fmt"
	"strings"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/workspace"
)

// duplicatesCheck warns of the pairs of routed skills that say the same
// thing (workspace.Duplicates), as lint reports them.
func duplicatesCheck(w *workspace.Workspace) doctor.Check {
	const name = "duplicates"
	c, err := w.Catalog()
	if err != nil {
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error()}
	}
	dups := w.Duplicates(c)
	if len(dups) == 0 {
		return doctor.Check{Name: name, Status: doctor.OK, Detail: "no two routed skills say the same thing"}
	}
	lines := make([]string, 0, len(dups))
	for _, d := range dups {
		lines = append(lines, fmt.Sprintf("%s (%s) and %s (%s): %s", d.Drop.Name, workspace.Describe(d.Drop.AbsPath),
			d.Keep.Name, workspace.Describe(d.Keep.AbsPath), d.Fix))
	}
	return doctor.Check{Name: name, Status: doctor.Warn,
		Detail: fmt.Sprintf("%d pair(s) of skills that say the same thing: %s", len(dups), strings.Join(lines, "; ")),
		Hint:   "keep one of each pair (the command after each), or add one to deny: in .megagit/config.yaml; `megagit lint` says why each pair matched"}
}
