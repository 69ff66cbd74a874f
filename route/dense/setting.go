package dense

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/models"
)

// Setting is what `model use` writes (config keys to set, nil to
// remove): for a model id, to the committed config; for a folder, to this
// machine's .megagit/local/config.yaml, since a committed config may not
// name one. Subject says what was chosen; Notes are the lines it prints on
// stderr after.
type Setting struct {
	Values  map[string]any
	Subject string
	Notes   []string
}

// HintError is a model choice that cannot be used, with the way to one
// that can: the command prints Hint under Err.
type HintError struct {
	Err  error
	Hint string
}

func (e *HintError) Error() string { return e.Err.Error() }

// Unwrap keeps Err's sentinels (config.ErrInvalid) visible for the exit code.
func (e *HintError) Unwrap() error { return e.Err }

// IDSetting selects a known model by id (stored under its canonical id).
func IDSetting(id string) (Setting, error) {
	if id == "none" {
		return Setting{Values: map[string]any{"model.id": id, "model.dir": nil}, Subject: "use model none"}, nil
	}
	if models.IsRetired(id) {
		return Setting{}, &HintError{fmt.Errorf("%w: %s is no longer built into megagit", config.ErrInvalid, id),
			"megagit ships one built-in model: megagit model use " + models.BuiltinID}
	}
	prof, known := models.ProfileFor(id)
	if !known {
		return Setting{}, &HintError{fmt.Errorf("%w: unknown model %q", config.ErrInvalid, id), "run `megagit model list` to see the known models"}
	}
	set := Setting{Values: map[string]any{"model.id": prof.ID, "model.dir": nil}, Subject: "use model " + prof.ID}
	if prof.Kind == "onnx" {
		dir, _ := models.ModelCacheDir(prof.ID)
		if dir == "" || models.CheckONNXDir(dir) != nil {
			set.Notes = append(set.Notes, "megagit: hint: "+prof.ID+" is not installed: "+installHint(prof))
		}
		set.Notes = append(set.Notes, unmeasuredNotes(prof)...)
		set.Notes = append(set.Notes, onnxNotes(prof.ID)...)
	}
	return set, nil
}

// FolderSetting selects a model folder for the registry at root; profile
// names the known model an ONNX folder holds ("" = by the folder's name,
// else defaults).
func FolderSetting(root, dir, profile string) (Setting, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Setting{}, err
	}
	stored := abs
	if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
		stored = filepath.ToSlash(rel) // inside the registry: it moves with it
	}
	set := Setting{Values: map[string]any{"model.dir": stored, "model.id": nil}, Subject: "use model folder " + stored}
	if !isONNXDir(abs) {
		if _, err := models.LoadStatic(os.DirFS(abs), "."); err != nil {
			return set, &HintError{fmt.Errorf("%w: --dir %s: %v", config.ErrInvalid, dir, err),
				"a model folder holds model.json + vectors.npy (a static model) or model.onnx + tokenizer.json (an ONNX model)"}
		}
		if profile != "" {
			return set, fmt.Errorf("%w: --profile is for ONNX model folders; %s is a static model", config.ErrInvalid, dir)
		}
		return set, nil
	}
	if err := models.CheckONNXDir(abs); err != nil {
		return set, fmt.Errorf("%w: --dir %s: %v", config.ErrInvalid, dir, err)
	}
	id := ""
	if profile != "" {
		p, known := onnxProfile(profile)
		if !known {
			return set, &HintError{fmt.Errorf("%w: unknown ONNX model %q", config.ErrInvalid, profile), "run `megagit model list` to see the known models"}
		}
		id = p.ID
		set.Values["model.id"] = id
		set.Subject += " as " + id
	}
	prof, known := folderProfile(id, abs)
	if !known {
		set.Notes = append(set.Notes, defaultProfileNote(prof.ID))
	}
	set.Notes = append(set.Notes, unmeasuredNotes(prof)...)
	set.Notes = append(set.Notes, onnxNotes(prof.ID)...)
	return set, nil
}

// unmeasuredNotes says, for a known model whose ranking numbers megagit
// never measured, where they come from (its profile's note).
func unmeasuredNotes(prof models.Profile) []string {
	if _, known := onnxProfile(prof.ID); !known || prof.Measured || prof.Note == "" {
		return nil
	}
	return []string{"megagit: note: " + prof.ID + ": " + prof.Note}
}

// onnxNotes is what follows a switch to an ONNX model: it routes lexically
// until its vectors exist (or always, in a build without ONNX).
func onnxNotes(id string) []string {
	if !models.ONNXSupported {
		return []string{"megagit: warning: this megagit was built without ONNX support: it will route with BM25F only"}
	}
	return []string{"megagit: hint: run `megagit embed` to embed the skills with " + id + "; routing stays lexical until then"}
}

// LoadHint says how to fix a model that cannot load because ONNX Runtime
// or the model's files are missing ("" for any other error): embed, unlike
// routing, has no lexical fallback.
func LoadHint(cfg *config.Config, err error) string {
	switch {
	case errors.Is(err, models.ErrNoRuntime) && !models.ONNXSupported:
		return "this megagit was built without ONNX support: build it with cgo (CGO_ENABLED=1, no -tags noonnx), or embed with the built-in model: `megagit model use " + models.BuiltinID + "`"
	case errors.Is(err, models.ErrNoRuntime):
		return "install ONNX Runtime with scripts/install-onnxruntime.sh, or point MEGAGIT_ONNXRUNTIME_LIB (config model.onnxruntime) at the library"
	case errors.Is(err, models.ErrNoModel) && cfg.Model.Dir != "":
		return "model.dir needs model.onnx and tokenizer.json: pick a folder holding both with `megagit model use --dir DIR`, or install a known model with `megagit model pull ID`"
	case errors.Is(err, models.ErrNoModel):
		prof, _ := onnxProfile(cfg.Model.ID)
		hint := installHint(prof)
		if !strings.Contains(hint, "--dir") {
			hint += ", or use a folder holding its model.onnx and tokenizer.json: `megagit model use --dir DIR --profile " + prof.ID + "`"
		}
		return hint
	}
	return ""
}
