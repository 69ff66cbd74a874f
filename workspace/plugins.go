package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/skillfile"
)

// Plugin is one of Claude Code's installed and enabled plugins whose
// skills megagit reads (read-only, like the user folders).
type Plugin struct {
	// Name is the plugin's name, the part of its id before "@": its skills
	// are named "Name:skill", as Claude Code names them.
	Name string
	// ID is "name@marketplace", as installed_plugins.json and enabledPlugins
	// write it.
	ID string
	// Dir is its skills folder (<installPath>/skills).
	Dir string
}

// claudeDir is Claude Code's configuration folder: $CLAUDE_CONFIG_DIR,
// else ~/.claude.
func claudeDir() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".claude")
}

// pluginFiles are the files that decide which plugins' skills are read:
// the record of installed plugins, and the settings files whose
// enabledPlugins turn them on and off (user < project < local).
func (w *Workspace) pluginFiles() (installed string, settings []string) {
	dir := claudeDir()
	if dir == "" {
		return "", nil
	}
	installed = filepath.Join(dir, "plugins", "installed_plugins.json")
	settings = []string{filepath.Join(dir, "settings.json")}
	wt := w.Reg.WorkTree()
	settings = append(settings, filepath.Join(wt, ".claude", "settings.json"), filepath.Join(wt, ".claude", "settings.local.json"))
	return installed, settings
}

// installedPlugins is installed_plugins.json: version 2 lists each
// plugin's installations (scope user, managed, project or local; the last
// two for one project), version 1 one installation a plugin.
type installedPlugins struct {
	Version int                        `json:"version"`
	Plugins map[string]json.RawMessage `json:"plugins"`
}

type pluginInstall struct {
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	ProjectPath string `json:"projectPath"`
}

// Plugins are the plugins whose skills Claude Code loads for this project:
// installed for the user (or managed), or for this project, and enabled
// in a settings file, by name. A file that cannot be read is a problem
// (naming it and the field); no file, no plugin.
func (w *Workspace) Plugins() ([]Plugin, []error) {
	if !w.Cfg.Sources.Plugins || !w.Cfg.Sources.Claude {
		return nil, nil
	}
	installedFile, settingsFiles := w.pluginFiles()
	if installedFile == "" {
		return nil, nil
	}
	var problems []error
	data, err := local.ReadRegular(installedFile, local.MaxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{fmt.Errorf("%s: %w", describe(installedFile), err)}
	}
	var rec installedPlugins
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, []error{fmt.Errorf("%s: %w", describe(installedFile), err)}
	}
	enabled := map[string]bool{}
	for _, f := range settingsFiles {
		on, err := enabledPlugins(f)
		if err != nil {
			problems = append(problems, err)
		}
		for id, v := range on {
			enabled[id] = v
		}
	}
	project := realPath(w.Reg.WorkTree())
	var out []Plugin
	for id, raw := range rec.Plugins {
		name, _, _ := strings.Cut(id, "@")
		if !enabled[id] {
			continue
		}
		if err := skillfile.ValidateName(name); err != nil {
			problems = append(problems, fmt.Errorf("%s: field plugins.%q: %w", describe(installedFile), id, err))
			continue
		}
		var installs []pluginInstall
		if rec.Version >= 2 {
			err = json.Unmarshal(raw, &installs)
		} else {
			var one pluginInstall
			err = json.Unmarshal(raw, &one)
			one.Scope = "user"
			installs = []pluginInstall{one}
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: field plugins.%q: %w", describe(installedFile), id, err))
			continue
		}
		for _, in := range installs {
			forUs := in.Scope == "user" || in.Scope == "managed" || in.Scope == "" ||
				in.ProjectPath != "" && realPath(in.ProjectPath) == project
			if !forUs || in.InstallPath == "" {
				continue
			}
			out = append(out, Plugin{Name: name, ID: id, Dir: filepath.Join(in.InstallPath, "skills")})
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, problems
}

// enabledPlugins reads a Claude Code settings file's enabledPlugins: true,
// or a list of version constraints, enables; false disables. No file: none.
func enabledPlugins(file string) (map[string]bool, error) {
	data, err := local.ReadRegular(file, local.MaxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", describe(file), err)
	}
	var s struct {
		EnabledPlugins map[string]any `json:"enabledPlugins"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", describe(file), err)
	}
	out := make(map[string]bool, len(s.EnabledPlugins))
	for id, v := range s.EnabledPlugins {
		switch v := v.(type) {
		case bool:
			out[id] = v
		case []any:
			out[id] = true
		}
	}
	return out, nil
}
