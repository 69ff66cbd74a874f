package cli

import (
	"fmt"
	"path/filepath"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/route/dense"
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
