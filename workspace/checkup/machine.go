package checkup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/hook/stop"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/route/index"
	"github.com/megagit/megagit/route/serve"
	"github.com/megagit/megagit/workspace"
)

// serveCheck says whether the registry's `megagit serve` runs (its pid,
// model and idle timeout), and why the last one the prompt hook started
// could not start, if it could not.
func serveCheck(w *workspace.Workspace) doctor.Check {
	const name = "serve"
	d := w.Reg.Local()
	info := d.FileLockState(serve.Lock)
	st, ok := serve.ReadState(d)
	by := ""
	if ok && st.Auto {
		by = ", started by the prompt hook"
	}
	if info.Held {
		detail := fmt.Sprintf("megagit serve (pid %d) runs", info.PID)
		switch {
		case !ok || st.PID != info.PID:
		case st.State == serve.Starting:
			detail = fmt.Sprintf("megagit serve (pid %d%s) is starting", info.PID, by)
		case st.State == serve.Serving:
			detail = fmt.Sprintf("megagit serve (pid %d%s) routes with %s; ", info.PID, by, st.Model)
			if st.Idle == "" || st.Idle == "0s" {
				detail += "it runs until stopped"
			} else {
				detail += "it stops after " + st.Idle + " without a request"
			}
		}
		return doctor.Check{Name: name, Status: doctor.OK, Detail: detail}
	}
	onnx := dense.UsesONNX(w.Cfg, w.Reg.Root())
	if ok && (st.State == serve.Failed || st.State == serve.Starting) {
		why := st.Error
		if why == "" {
			why = fmt.Sprintf("megagit serve (pid %d) exited while loading, before it answered", st.PID)
		}
		return doctor.Check{Name: name, Status: doctor.Warn,
			Detail: fmt.Sprintf("no megagit serve runs; the last one the prompt hook started could not start at %s: %s", st.Time, why),
			Hint: fmt.Sprintf("%s says more; the hook routes without the model until it is mended (it starts the server again once the model, ONNX Runtime or the config changes, or after %s)",
				filepath.Join(d.Path(), serve.Log), serve.RetryAfter)}
	}
	detail := "no megagit serve runs"
	switch {
	case onnx && w.Cfg.Hook.Serve == "off":
		detail += "; the prompt hook routes without the ONNX model (hook.serve: off)"
	case onnx:
		detail += "; the prompt hook starts one for the ONNX model"
	}
	return doctor.Check{Name: name, Status: doctor.OK, Detail: detail}
}

// identityCheck fails when git has no identity to author commits with, or
// when verdicts of past sessions wait for one (the stop hook keeps them in
// .megagit/local/pending/ rather than drop them).
func identityCheck(reg *registry.Registry) doctor.Check {
	const name = "git identity"
	idErr := reg.HasIdentity()
	v, sessions := stop.Pending(reg.Local())
	switch {
	case idErr != nil && v > 0:
		return doctor.Check{Name: name, Status: doctor.Fail,
			Detail: fmt.Sprintf("none, and %d verdict(s) of %d session(s) wait for one", v, sessions),
			Hint:   "`git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`, then `megagit doctor --fix` records them"}
	case idErr != nil:
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: "none: verdicts cannot be committed (the stop hook keeps them until there is one)",
			Hint: "`git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`"}
	case v > 0:
		return doctor.Check{Name: name, Status: doctor.Fail,
			Detail: fmt.Sprintf("%d verdict(s) of %d session(s) are not recorded yet (there was no identity, or a skill had uncommitted edits: hook.log says which)", v, sessions),
			Hint:   "commit your edits to the skill if any, then `megagit doctor --fix` records them (the next stop hook also does)"}
	}
	return doctor.Check{Name: name, Status: doctor.OK, Detail: "commits are authored by your git identity"}
}

// writableCheck warns when the registry's .megagit/local cannot be written
// (a read-only mount): the prompt hook still routes, but remembers no
// session and logs no decision, and verdicts cannot be recorded.
func writableCheck(reg *registry.Registry) doctor.Check {
	const name = "writable"
	dir := reg.Local().Path()
	err := local.MkdirAll(dir)
	if err == nil {
		probe := filepath.Join(dir, ".doctor-writable")
		if err = local.WriteFileAtomic(probe, []byte("megagit doctor\n"), 0o600); err == nil {
			os.Remove(probe)
			return doctor.Check{Name: name, Status: doctor.OK, Detail: dir + " can be written"}
		}
	}
	if !local.IsReadOnly(err) {
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error()}
	}
	return doctor.Check{Name: name, Status: doctor.Warn,
		Detail: dir + " cannot be written (read-only): prompts are routed, but no session is remembered (a skill may be injected again), no decision is logged, and no verdict can be recorded",
		Hint:   "make the registry writable, or use a clone of it that is"}
}

// routeIndexCheck says whether the compiled route index the prompt hook
// answers from is there, whole, and up to date with every skill.
func routeIndexCheck(w *workspace.Workspace) doctor.Check {
	const name = "route-index"
	fix := "`megagit index` (or `megagit doctor --fix`) rebuilds it; the prompt hook also does"
	c, ok := index.ReadCompiled(w.Reg.Local(), index.RankerKey(workspace.RankerConfig(w.Cfg)), index.Want{Bodies: true, Vectors: true, Fallback: true, Stamps: true})
	if !ok {
		if _, err := os.Stat(filepath.Join(w.Reg.LocalDir(), index.IndexFile)); errors.Is(err, os.ErrNotExist) {
			return doctor.Check{Name: name, Status: doctor.Warn, Detail: "no compiled route index yet", Hint: fix}
		}
		return doctor.Check{Name: name, Status: doctor.Warn, Detail: index.IndexFile + " is damaged or of another format: it is never read", Hint: fix}
	}
	key, err := index.SkillsKey(w.Reg.Root(), w.StampRoots())
	switch {
	case err != nil:
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error()}
	case c.Index == nil:
		return doctor.Check{Name: name, Status: doctor.Warn, Detail: "built with other ranker settings", Hint: fix}
	case c.Key != key:
		return doctor.Check{Name: name, Status: doctor.Warn, Detail: "out of date: a skill or ledger changed since it was built", Hint: fix}
	}
	if want := w.BuiltinKey(); want != "" && (c.Vectors == nil || c.Vectors.Key != want) {
		held := "no vectors"
		if c.Vectors != nil {
			held = "the vectors of " + c.Vectors.Key
		}
		return doctor.Check{Name: name, Status: doctor.Warn,
			Detail: fmt.Sprintf("out of date: it holds %s, not of the active model %s", held, want), Hint: fix}
	}
	detail := fmt.Sprintf("%d skills, lexical only", len(c.Docs))
	if c.Vectors != nil {
		detail = fmt.Sprintf("%d skills, vectors of %s", len(c.Docs), c.Vectors.Key)
	}
	if c.Fallback != nil {
		detail += fmt.Sprintf(" (and of %s for the prompt hook until megagit serve answers)", c.Fallback.Key)
	}
	return doctor.Check{Name: name, Status: doctor.OK, Detail: detail + ", up to date"}
}

// cacheChecks verifies each committed embedding cache: index.json reads
// and names the vectors.npy it was written with, and the array reads.
func cacheChecks(e *workspace.Workspace) []doctor.Check {
	dirs := e.CommittedCaches()
	if len(dirs) == 0 {
		return []doctor.Check{{Name: "cache", Status: doctor.OK, Detail: "no embedding cache committed"}}
	}
	var out []doctor.Check
	for _, d := range dirs {
		name := "cache " + d.Name
		if d.Err != nil {
			out = append(out, doctor.Check{Name: name, Status: doctor.Fail, Detail: d.Err.Error(),
				Hint: "run `megagit cache verify` for the exact fix (routing ignores a broken cache meanwhile)"})
			continue
		}
		out = append(out, doctor.Check{Name: name, Status: doctor.OK, Detail: "index.json matches vectors.npy"})
	}
	return out
}

// cacheCoverageCheck says whether the committed embedding cache of the
// active model holds a row for every text routing embeds: each skill's
// description and name, and each helpful or harmful context and verdict
// reason it keeps. A cache that lacks rows still routes (the missing
// vectors are computed on each machine); `megagit embed` adds them.
func cacheCoverageCheck(e *workspace.Workspace) []doctor.Check {
	const name = "cache coverage"
	emb, _, err := dense.Load(e.Cfg, e.Reg.Root())
	if err != nil || emb == nil {
		return nil // lexical routing, or a model that does not load: other checks say so
	}
	cov, ok := e.CacheCoverage(emb)
	if !ok {
		return nil
	}
	lacking := append(append([]string{}, cov.Stale...), cov.Missing...)
	if len(lacking) == 0 {
		return []doctor.Check{{Name: name, Status: doctor.OK, Detail: fmt.Sprintf("every text of %d skill(s) has its vector", cov.Skills)}}
	}
	return []doctor.Check{{Name: name, Status: doctor.Warn,
		Detail: fmt.Sprintf("the committed cache of %s lacks vectors of %d skill(s): %s; routing computes them on each machine meanwhile",
			emb.ID(), len(lacking), strings.Join(lacking, ", ")),
		Hint: "run `megagit embed`, which adds the missing vectors and commits them (doctor --fix does not embed)"}}
}
