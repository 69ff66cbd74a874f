package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/hook/install"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/spf13/cobra"
)

type doctorOptions struct {
	app     *app
	json    bool
	fix     bool
	offline bool
	timeout time.Duration
}

// newDoctorCmd parses `megagit doctor` into options and hands them to runF,
// or to doctorRun when runF is nil (tests pass a stub).
func newDoctorCmd(a *app, runF func(*doctorOptions) error) *cobra.Command {
	opts := &doctorOptions{app: a}
	cmd := &cobra.Command{
		Use:   "doctor [--json] [--fix]",
		Short: "Check the registry: evidence vs ledger, caches, lock, interrupted writes, hooks, remote",
		Long: `doctor runs every check and prints ok, warn or fail for each. It exits 0
when nothing fails and 10 when something does. --fix finishes an interrupted
write and rebuilds evidence from the ledgers (megagit resync), then checks again.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return doctorRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the checks as JSON")
	cmd.Flags().BoolVar(&opts.fix, "fix", false, "repair what can be repaired (interrupted write, stale evidence)")
	cmd.Flags().BoolVar(&opts.offline, "offline", false, "skip the remote reachability check")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", 5*time.Second, "how long to wait for the git remote")
	return cmd
}

func doctorRun(opts *doctorOptions) error {
	a := opts.app
	root, err := registryRoot(a)
	if err != nil {
		return withHint(err, "create one with `megagit init`, or point at one with -C DIR")
	}
	journal := registry.JournalPending(root)
	e, err := a.open(nil) // finishes an interrupted write when no writer is alive
	if err != nil {
		return err
	}
	if opts.fix {
		debris, err := e.reg.RemoveTempDebris()
		if err != nil {
			return fmt.Errorf("fix: %w", err)
		}
		if len(debris) > 0 {
			fmt.Fprintf(a.errOut, "megagit: fix: removed %d temp file(s) of interrupted writes\n", len(debris))
		}
		results, _, err := e.reg.Resync("")
		if err != nil {
			return fmt.Errorf("fix: %w", err)
		}
		fmt.Fprintf(a.errOut, "megagit: fix: rebuilt the evidence of %d skill(s) from the ledger\n", len(results))
	}
	timeout := opts.timeout
	if opts.offline {
		timeout = 0
	}
	checks := e.reg.Doctor()
	if timeout > 0 {
		checks = append(checks, regsync.RemoteCheck(e.reg, timeout))
	}
	if journal && !registry.JournalPending(root) {
		checks = append(checks, registry.Check{Name: "recovery", Status: registry.CheckWarn,
			Detail: "an interrupted write (a killed megagit) was found and finished"})
	}
	checks = append(checks, cacheChecks(root)...)
	checks = append(checks, hookCheck(e.reg.WorkTree()))
	failed := 0
	for _, c := range checks {
		if c.Status == registry.CheckFail {
			failed++
		}
	}
	if opts.json {
		if err := printJSON(a.out, checks); err != nil {
			return err
		}
	} else {
		rows := make([][]string, len(checks))
		for i, c := range checks {
			rows[i] = []string{c.Status, c.Name, c.Detail, c.Hint}
		}
		if err := printTable(a.out, []string{"STATUS", "CHECK", "DETAIL", "HINT"}, rows); err != nil {
			return err
		}
	}
	if failed > 0 {
		return withHint(fmt.Errorf("%w: %d check(s) failed", errProblems, failed), "`megagit doctor --fix` repairs interrupted writes and stale evidence")
	}
	return nil
}

// cacheChecks verifies each committed embedding cache: index.json reads
// and names the vectors.npy it was written with, and the array reads.
func cacheChecks(root string) []registry.Check {
	dirs, _ := filepath.Glob(filepath.Join(root, ".megagit", "embeddings", "*"))
	if len(dirs) == 0 {
		return []registry.Check{{Name: "cache", Status: registry.CheckOK, Detail: "no embedding cache committed"}}
	}
	var out []registry.Check
	for _, d := range dirs {
		name := "cache " + filepath.Base(d)
		if err := checkCacheDir(d); err != nil {
			out = append(out, registry.Check{Name: name, Status: registry.CheckFail, Detail: err.Error(),
				Hint: "run `megagit cache verify` for the exact fix (routing ignores a broken cache meanwhile)"})
			continue
		}
		out = append(out, registry.Check{Name: name, Status: registry.CheckOK, Detail: "index.json matches vectors.npy"})
	}
	return out
}

// checkCacheDir is the integrity part of `megagit cache verify` (shared
// through embedcache.Inspect), for every model's folder.
func checkCacheDir(d string) error {
	ins := embedcache.Inspect(d)
	if !ins.Present {
		return fmt.Errorf("index.json is missing")
	}
	return ins.Err
}

// hookCheck looks for megagit's hooks in the agent settings files of the
// project and the user.
func hookCheck(workTree string) registry.Check {
	home, _ := os.UserHomeDir()
	var found []string
	for _, agent := range []string{hook.AgentClaude, hook.AgentCodex, hook.AgentGemini} {
		for _, scope := range []string{install.ScopeProject, install.ScopeUser} {
			p, err := install.SettingsPath(agent, scope, workTree, home)
			if err != nil {
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if settingsHaveOurs(data) {
				found = append(found, p)
			}
		}
	}
	if len(found) == 0 {
		return registry.Check{Name: "hooks", Status: registry.CheckWarn, Detail: "no agent settings file runs megagit's hooks",
			Hint: "run `megagit hook install` so prompts are routed and sessions leave verdicts"}
	}
	return registry.Check{Name: "hooks", Status: registry.CheckOK, Detail: "installed in " + strings.Join(found, ", ")}
}

// settingsHaveOurs walks any JSON for a "command" string that runs megagit.
func settingsHaveOurs(data []byte) bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if s, ok := val.(string); ok && k == "command" && install.IsOurs(s) {
					return true
				}
				if walk(val) {
					return true
				}
			}
		case []any:
			for _, val := range x {
				if walk(val) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
