package dense

import (
	"os"
	"path/filepath"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/models"
)

// ModelRow is one line of `model list`: a known profile, or model.dir's
// folder as routing would load it.
type ModelRow struct {
	models.Profile
	Installed bool   `json:"installed"`
	Active    bool   `json:"active"`
	Where     string `json:"where"`
	// Folder marks model.dir's row: a local folder, not a known profile.
	Folder bool `json:"folder,omitempty"`
	// Supported is false for ONNX models in a build without ONNX support.
	Supported bool `json:"supported"`
	// Runtime is the ONNX Runtime library ONNX rows load (ONNX rows only).
	Runtime *RuntimeInfo `json:"onnxruntime,omitempty"`
}

// RuntimeInfo is where ONNX models look for ONNX Runtime.
type RuntimeInfo struct {
	Path  string `json:"path"`
	Found bool   `json:"found"`
}

// ModelRows lists every known model, and model.dir's folder when set, as
// cfg would route with them in the registry at root ("" outside one),
// with the ONNX Runtime library their ONNX rows load.
func ModelRows(cfg *config.Config, root string) ([]ModelRow, *RuntimeInfo) {
	rt := &RuntimeInfo{Path: models.RuntimePath(cfg.Model.ONNXRuntime)}
	if _, err := os.Stat(rt.Path); err == nil && rt.Path != "" {
		rt.Found = true
	}
	active := ""
	if p, known := models.ProfileFor(ModelID(cfg)); known && cfg.Model.Dir == "" {
		active = p.ID
	}
	var rows []ModelRow
	for _, p := range models.Profiles() {
		r := ModelRow{Profile: p, Active: p.ID == active, Supported: true}
		if p.Builtin {
			_, err := models.BuiltinModel(p.ID)
			r.Installed, r.Where = err == nil, "built in"
		} else if p.Kind == "onnx" {
			r.Where, _ = models.ModelCacheDir(p.ID)
			r.Installed = r.Where != "" && models.CheckONNXDir(r.Where) == nil
			r.Supported, r.Runtime = models.ONNXSupported, rt
		}
		rows = append(rows, r)
	}
	if cfg.Model.Dir != "" {
		rows = append(rows, folderRow(cfg, root, rt))
	}
	return rows, rt
}

// folderRow describes model.dir's folder as routing will load it.
func folderRow(cfg *config.Config, root string, rt *RuntimeInfo) ModelRow {
	dir := ModelDirPath(cfg, root)
	r := ModelRow{Active: true, Folder: true, Where: dir, Supported: true}
	if isONNXDir(dir) {
		r.Profile, _ = folderProfile(cfg.Model.ID, dir)
		r.Installed = models.CheckONNXDir(dir) == nil
		r.Supported, r.Runtime = models.ONNXSupported, rt
		return r
	}
	r.Profile = models.StaticProfile
	r.ID, r.Builtin, r.Measured = filepath.Base(dir), false, false
	if m, err := models.LoadStatic(os.DirFS(dir), "."); err == nil {
		r.ID, r.Dim, r.Installed = m.ID(), m.Dim(), true
	}
	return r
}
