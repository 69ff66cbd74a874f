// Package inject is the prompt hook: it decides which skills to inject
// for one prompt, within a deadline, and records the decision. Both the
// megagit binary (`megagit hook prompt`) and the small megagit-hook binary
// run it. megagit-hook links neither git, the config reader nor any model
// code, so it starts in a third of the time; it reads the settings megagit
// resolved from the config and saved (SaveSettings), and hands the prompt
// to megagit (ErrStale) whenever those or the compiled index are out of
// date, or a semantic model must be loaded in-process.
package inject

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/index"
)

// How the prompt hook uses the configured semantic model.
const (
	ModelNone    = "none"    // lexical routing
	ModelBuiltin = "builtin" // the built-in static model
	ModelONNX    = "onnx"    // only through `megagit serve` (which the hook starts), else the fallback
	ModelOther   = "other"   // a static model folder
)

// Settings is what the prompt hook needs from a registry's config, resolved.
type Settings struct {
	Deadline    time.Duration
	Shadow      bool
	Output      string
	LogPrompts  bool
	Route       route.Settings
	Roots       []string
	LockTimeout time.Duration
	Ranker      ranker.Config
	DynamicK    route.DynamicKOverride
	Model       string
	// ModelID names the model; ModelKey is its build's key, which the
	// compiled index's vectors must carry (index.Vectors.Key); ModelDir is
	// a static model folder's path (ModelOther); Dense its routing profile.
	ModelID, ModelKey, ModelDir string
	Dense                       route.DenseProfile
	// FallbackID, FallbackKey and FallbackDense are the model an ONNX
	// model's prompts are routed with until its `megagit serve` answers
	// (the built-in model; "": lexically), as ModelID, ModelKey and Dense.
	FallbackID, FallbackKey string             `json:",omitempty"`
	FallbackDense           route.DenseProfile `json:",omitempty"`
	// Refresh is hook.refresh: "background", "wait" or "off".
	Refresh string
	// ServeKey fingerprints the routing settings for `megagit serve`.
	ServeKey string
	// Serve is hook.serve: "auto" (start the registry's `megagit serve`
	// when the model needs one and none answers) or "off"; ServeIdle is
	// how long a server started so waits for a request before it stops
	// (serve.idle_ms). ServeFiles are the files whose stamp says a server
	// that could not start may be tried again (serve.Stamp).
	Serve      string        `json:",omitempty"`
	ServeIdle  time.Duration `json:",omitempty"`
	ServeFiles []string      `json:",omitempty"`
	// Watch are the config files besides the registry's that decide the
	// settings (the user config, the team registry's): saved settings are
	// stale once one of them changes.
	Watch []string `json:",omitempty"`
	// Notes are the bad settings megagit set aside resolving these (each
	// naming the setting, where its value came from, the value and what
	// was used instead); every hook call that uses them logs them.
	Notes []string `json:",omitempty"`
}

// configStamp stamps the registry's config file and the watched ones.
func configStamp(root string, watch []string) string {
	files := append([]string{filepath.Join(root, filepath.FromSlash(local.ConfigPath))}, watch...)
	var b strings.Builder
	for _, st := range index.StatAll(files) {
		b.WriteString(st.String() + " ")
	}
	return b.String()
}

// ErrStale means this process cannot answer the prompt itself: the saved
// settings or the compiled index are missing or out of date, or the model
// needs the full binary. Nothing was printed or logged; megagit-hook then
// runs `megagit hook prompt`, which brings them up to date.
var ErrStale = errors.New("saved hook settings or compiled index out of date")

// ErrOtherVersion is the ErrStale of settings saved by another megagit
// version: unlike other changes it does not go away once megagit has
// saved them again, so every prompt is handed over until both binaries
// come from the same release.
var ErrOtherVersion = errors.New("saved by another megagit version")

// SettingsFile is the saved settings' name in .megagit/local/.
const SettingsFile = "hook-settings.json"

// settingsFormat is the saved settings' format version.
const settingsFormat = 4

// saved is the settings file: the settings and what they were resolved
// from (the megagit version, the config file's stamp and the values of
// the environment variables the config reads).
type saved struct {
	Format   int      `json:"format"`
	Version  string   `json:"version"`
	Root     string   `json:"root"`
	Config   string   `json:"config"`
	EnvNames []string `json:"env_names"`
	EnvSum   string   `json:"env_sum"`
	Settings Settings `json:"settings"`
}

// SaveSettings saves s as resolved for the registry at root from its
// config file and the environment variables envNames by megagit version; it writes only when the file
// would change (the prompt hook calls it on every full run). A failure
// only costs megagit-hook its fast path, so it is returned for the log.
func SaveSettings(dir local.Dir, root, version string, envNames []string, s *Settings) error {
	data, err := json.Marshal(saved{
		Format: settingsFormat, Version: version, Root: root, Config: configStamp(root, s.Watch),
		EnvNames: envNames, EnvSum: envSum(envNames), Settings: *s,
	})
	if err != nil {
		return err
	}
	if old, err := dir.Read(SettingsFile); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return dir.WriteCache(SettingsFile, data)
}

// LoadSettings reads the saved settings of the registry at root; ErrStale
// when there are none or the registry moved, or its config file, the
// environment or the megagit version changed since.
func LoadSettings(dir local.Dir, root, version string) (*Settings, error) {
	data, err := dir.Read(SettingsFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStale, err)
	}
	var sv saved
	if err := json.Unmarshal(data, &sv); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStale, SettingsFile, err)
	}
	switch {
	case sv.Format != settingsFormat:
		return nil, fmt.Errorf("%w: format %d", ErrStale, sv.Format)
	case sv.Version != version:
		return nil, fmt.Errorf("%w: %w: megagit %s, this is %s", ErrStale, ErrOtherVersion, sv.Version, version)
	case sv.Root != root:
		return nil, fmt.Errorf("%w: saved for %s", ErrStale, sv.Root)
	case sv.Config != configStamp(root, sv.Settings.Watch):
		return nil, fmt.Errorf("%w: the config changed", ErrStale)
	case sv.EnvSum != envSum(sv.EnvNames):
		return nil, fmt.Errorf("%w: the environment changed", ErrStale)
	}
	return &sv.Settings, nil
}

// envSum fingerprints the values of the named environment variables,
// telling an unset variable from an empty one.
func envSum(names []string) string {
	h := sha256.New()
	for _, n := range names {
		if v, ok := os.LookupEnv(n); ok {
			fmt.Fprintf(h, "%s=%d:%s\n", n, len(v), v)
		} else {
			fmt.Fprintf(h, "%s unset\n", n)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
