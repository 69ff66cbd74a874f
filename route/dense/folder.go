package dense

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/models"
)

// ModelDirPath resolves model.dir: relative paths are inside the registry.
func ModelDirPath(cfg *config.Config, root string) string {
	dir := cfg.Model.Dir
	if !filepath.IsAbs(dir) && root != "" {
		dir = filepath.Join(root, filepath.FromSlash(dir))
	}
	return dir
}

// isStaticDir says whether dir holds a static model (model.json): such a
// folder stays a static model even if it also holds ONNX files.
func isStaticDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "model.json"))
	return err == nil
}

// isONNXDir says whether dir is meant as an ONNX model folder: it holds
// one (CheckONNXDir) or at least one of its files, so a missing half is
// reported as such rather than as a missing model.json.
func isONNXDir(dir string) bool {
	if isStaticDir(dir) {
		return false
	}
	for _, f := range []string{models.ONNXModelFile, filepath.Join("onnx", models.ONNXModelFile), models.TokenizerFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// UsesONNX says whether the configured model is an ONNX model, whose
// session takes hundreds of milliseconds to start.
func UsesONNX(cfg *config.Config, root string) bool {
	if cfg.Model.Dir != "" {
		return isONNXDir(ModelDirPath(cfg, root))
	}
	_, known := onnxProfile(cfg.Model.ID)
	return known
}

// onnxProfile is ProfileFor restricted to ONNX profiles: an id naming the
// built-in static model gets the unknown-model defaults too.
func onnxProfile(id string) (models.Profile, bool) {
	p, known := models.ProfileFor(id)
	if known && p.Kind != "onnx" {
		p, _ = models.ProfileFor("")
		p.ID, known = id, false
	}
	return p, known
}

// folderProfile is the profile of an ONNX model folder: model.id's when it
// names an ONNX profile, else the folder name's; known is false when
// neither is a known model and the defaults apply.
func folderProfile(id, dir string) (models.Profile, bool) {
	if p, known := onnxProfile(id); known {
		return p, true
	}
	return onnxProfile(filepath.Base(dir))
}

// isDefaultProfile says whether an ONNX model routes with the defaults of
// an unknown model (worth a note: nothing about it was measured).
func isDefaultProfile(p models.Profile) bool {
	if p.Kind != "onnx" {
		return false
	}
	_, known := onnxProfile(p.ID)
	return !known
}

// defaultProfileNote is the one-line note for a model without a profile.
func defaultProfileNote(id string) string {
	return fmt.Sprintf("megagit: note: %s is not a known model: using the default profile (mean pooling, no query prefix, no floor); `megagit model use --dir DIR --profile ID` picks another", id)
}

// loadONNX opens an ONNX model folder with the configured runtime library;
// the profile returned has the model's own inputs and dimension filled in.
func loadONNX(cfg *config.Config, dir string, prof models.Profile) (models.Embedder, models.Profile, error) {
	emb, err := models.NewONNX(dir, prof, models.RuntimePath(cfg.Model.ONNXRuntime))
	if err != nil {
		return nil, prof, err
	}
	if p, ok := emb.(interface{ Profile() models.Profile }); ok {
		prof = p.Profile()
	}
	return emb, prof, nil
}

// loadONNXProfile opens an ONNX profile's model where `megagit model pull`
// installs it; a missing model names the way to get it.
func loadONNXProfile(cfg *config.Config, prof models.Profile) (models.Embedder, models.Profile, error) {
	dir, err := models.ModelCacheDir(prof.ID)
	if err != nil {
		return nil, prof, err
	}
	emb, p, err := loadONNX(cfg, dir, prof)
	if errors.Is(err, models.ErrNoModel) {
		err = fmt.Errorf("model %s is not installed (%w): %s", prof.ID, err, installHint(prof))
	}
	return emb, p, err
}

// installHint says how to get an ONNX profile's model files.
func installHint(prof models.Profile) string {
	if len(prof.Files) > 0 && prof.HubID != "" {
		return "run `megagit model pull " + prof.ID + "`"
	}
	return "put its model.onnx and tokenizer.json in a folder and run `megagit model use --dir DIR --profile " + prof.ID + "`"
}

// loadFolder opens model.dir: a static model (model.json + vectors.npy) or
// an ONNX model (model.onnx + tokenizer.json) with folderProfile's profile.
func loadFolder(cfg *config.Config, root string) (models.Embedder, models.Profile, error) {
	dir := ModelDirPath(cfg, root)
	if isONNXDir(dir) {
		prof, _ := folderProfile(cfg.Model.ID, dir)
		emb, p, err := loadONNX(cfg, dir, prof)
		if err != nil {
			return nil, p, fmt.Errorf("model.dir %s: %w", cfg.Model.Dir, err)
		}
		return emb, p, nil
	}
	m, err := models.LoadStatic(os.DirFS(dir), ".")
	if err != nil {
		return nil, models.Profile{}, fmt.Errorf("model.dir %s: %w", cfg.Model.Dir, err)
	}
	prof, _ := models.ProfileFor(models.BuiltinID)
	prof.ID, prof.Builtin, prof.Dim = m.ID(), false, m.Dim()
	return m, prof, nil
}

// ONNXFiles are the files an ONNX model's load depends on (its folder's
// model and tokenizer, the ONNX Runtime library) and the folder of the
// vectors `megagit embed` commits for it, for the stamp that says a
// server which could not load the model may be tried again; nil when the
// configured model is no ONNX model.
func ONNXFiles(cfg *config.Config, root string) []string {
	if !UsesONNX(cfg, root) {
		return nil
	}
	dir, id := onnxDir(cfg, root)
	var out []string
	if dir != "" {
		out = append(out, filepath.Join(dir, models.ONNXModelFile), filepath.Join(dir, "onnx", models.ONNXModelFile),
			filepath.Join(dir, models.TokenizerFile))
	}
	out = append(out, models.RuntimePath(cfg.Model.ONNXRuntime))
	if root != "" && id != "" {
		out = append(out, filepath.Join(embedcache.CacheDir(root, id), "index.json"))
	}
	return out
}

// ONNXModelID is the id the configured ONNX model routes and caches its
// vectors under (its profile's, or its folder's name), without loading it.
func ONNXModelID(cfg *config.Config, root string) string {
	_, id := onnxDir(cfg, root)
	return id
}

// onnxDir is the configured ONNX model's folder ("" when there is none
// to name) and id.
func onnxDir(cfg *config.Config, root string) (dir, id string) {
	if cfg.Model.Dir != "" {
		dir = ModelDirPath(cfg, root)
		prof, _ := folderProfile(cfg.Model.ID, dir)
		return dir, prof.ID
	}
	prof, _ := onnxProfile(cfg.Model.ID)
	dir, err := models.ModelCacheDir(prof.ID)
	if err != nil {
		dir = ""
	}
	return dir, prof.ID
}
