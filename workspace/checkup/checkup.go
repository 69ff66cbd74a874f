// Package checkup is `megagit doctor`'s checks of a workspace: each
// reads what one part of megagit keeps (the registry, its installs, the
// caches and route index, serve, the sources and what is held back,
// adopt's switches, the agents' settings) and says ok, warn or fail, with
// how to repair it. It changes nothing; the repairs are workspace.Repair
// and adopt.Repair.
package checkup

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/hook/install"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	skillinstall "github.com/megagit/megagit/registry/install"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/megagit/megagit/workspace"
)

// Options are what a checkup reaches beyond the machine.
type Options struct {
	// Remote bounds the check that the git remote answers (0: skipped).
	Remote time.Duration
	// Recovered says opening the registry finished an interrupted write
	// (a killed megagit's), which the checks then report.
	Recovered bool
}

// Run is every check `megagit doctor` makes of w, in the order it prints
// them: the registry's own (and the user registry's failures), the remote,
// the caches, settings, the route index, serve, sources, trust, adopt, the
// git identity, whether .megagit/local can be written, the agents'
// listings, duplicates, and megagit's entries in the agents' settings.
func Run(e *workspace.Workspace, opts Options) []doctor.Check {
	checks := registryChecks(e.Reg)
	if user, _ := e.Personal(); user != nil {
		for _, c := range registryChecks(user.Reg) {
			if c.Status == doctor.Fail {
				c.Name = "user registry " + c.Name
				c.Detail = workspace.Describe(user.Reg.Root()) + ": " + c.Detail
				checks = append(checks, c)
			}
		}
	}
	if opts.Remote > 0 {
		checks = append(checks, regsync.RemoteCheck(e.Reg, opts.Remote))
	}
	if opts.Recovered {
		checks = append(checks, doctor.Check{Name: "recovery", Status: doctor.Warn,
			Detail: "an interrupted write (a killed megagit) was found and finished"})
	}
	checks = append(checks, cacheChecks(e)...)
	checks = append(checks, cacheCoverageCheck(e)...)
	checks = append(checks, settingsCheck(e), routeIndexCheck(e), serveCheck(e), sourcesCheck(e), trustCheck(e), adoptCheck(e), identityCheck(e.Reg), writableCheck(e.Reg))
	checks = append(checks, listingCheck(e), duplicatesCheck(e))
	checks = append(checks, install.DoctorCheck(e.Reg.WorkTree()), install.MCPDoctorCheck(e.Reg.WorkTree()))
	if home, err := os.UserHomeDir(); err == nil {
		if c, ok := install.UserHookCheck(home); ok {
			checks = append(checks, c)
		}
	}
	return checks
}

// LocalDir is the one check doctor runs when .megagit/local is not a
// folder (a symlink, a file): the others read the registry through it.
func LocalDir(root string) doctor.Check {
	detail := strings.TrimPrefix(local.Open(root, 0).Check().Error(), errkind.ErrInvalid.Error()+": ")
	detail, _, _ = strings.Cut(detail, " (`megagit doctor --fix`")
	return doctor.Check{Name: "local state", Status: doctor.Fail, Detail: detail + "; the other checks run once it is one",
		Hint: "`megagit doctor --fix` replaces it with a folder (a file is kept beside it) and stops tracking it"}
}

// registryChecks are a registry's own checks, then its installs' (the
// lock against the skills).
func registryChecks(reg *registry.Registry) []doctor.Check {
	return append(reg.Doctor(), skillinstall.Check(reg))
}

// settingsCheck warns of the settings the registry's committed config
// sets but may not (config.Ignored): each file, and its keys.
func settingsCheck(w *workspace.Workspace) doctor.Check {
	const name = "settings"
	var files []string
	keys := map[string][]string{}
	for _, ig := range w.Cfg.Ignored {
		if keys[ig.File] == nil {
			files = append(files, ig.File)
		}
		keys[ig.File] = append(keys[ig.File], ig.Key)
	}
	if len(files) == 0 {
		return doctor.Check{Name: name, Status: doctor.OK, Detail: "the committed config names no library, program or folder of this machine"}
	}
	var parts []string
	for _, f := range files {
		parts = append(parts, fmt.Sprintf("%s sets %s", f, strings.Join(keys[f], ", ")))
	}
	return doctor.Check{Name: name, Status: doctor.Warn,
		Detail: strings.Join(parts, "; ") + ": a committed config may not name a library, program or folder of this machine, so megagit ignores them",
		Hint:   "remove them from the committed file; set them for this machine in .megagit/local/config.yaml (`megagit model use --dir DIR`), your user config or the environment"}
}
