package config

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/audit"
)

// A registry's .megagit/config.yaml is committed: every clone of the
// registry reads what any teammate wrote there. So, as git takes no
// core.hooksPath from a clone, a committed file may not choose what runs
// or loads on a machine: a setting tagged scope:"machine" (the ONNX
// Runtime library, a model folder) is taken only from the user's own
// files (the user config, the registry's .megagit/local/config.yaml, never
// committed), the environment or a flag. dynamic_k.gate names a file too,
// but of data (the weights of a logistic model, parsed and bounded, never
// run): a committed gate is taken when it is a path inside the registry,
// read under its symlink policy, and ignored when it is an absolute path,
// which names a file of this machine rather than of the registry.

// Files are the files one reading of the settings takes, lowest first
// (above the defaults, below the environment and the flags); any may be "".
type Files struct {
	// Registry is the registry's committed .megagit/config.yaml: shared,
	// so a machine setting in it is ignored (Config.Ignored).
	Registry string
	// User is the user config (UserFile): its machine settings (LoadUser
	// reads the rest).
	User string
	// Local is the registry's .megagit/local/config.yaml: this machine's
	// own settings, never committed; it may hold any setting.
	Local string
}

// FilesFor are the files the settings of the registry whose committed
// config is file are read from ("" outside a registry: the user config
// alone).
func FilesFor(file string) Files {
	f := Files{Registry: file, User: UserFile()}
	if file != "" {
		f.Local = LocalFile(file)
	}
	return f
}

// LocalFile is the per-machine config beside a registry's committed file:
// .megagit/local/config.yaml, which `megagit model use --dir` writes.
func LocalFile(file string) string {
	return filepath.Join(filepath.Dir(file), "local", FileName)
}

// LocalPath is LocalFile relative to the registry root, slash-separated.
const LocalPath = ".megagit/local/" + FileName

// MachineKeys are the settings only the user's own files, the environment
// or a flag may set.
func MachineKeys() []string {
	var out []string
	for _, f := range fields {
		if f.machine {
			out = append(out, f.key)
		}
	}
	return out
}

// Ignored is a setting the registry's committed file sets but may not.
type Ignored struct {
	File string `json:"file"`
	Key  string `json:"key"`
}

// Error says which file sets what, why it is not taken and where it may
// be set instead.
func (i Ignored) Error() string {
	if i.Key == gateKey {
		return fmt.Sprintf("%s sets %s to an absolute path, a file of this machine rather than of the registry: a committed gate file is named by its path inside the registry", i.File, i.Key)
	}
	where := "an environment variable " + envName(i.Key)
	switch i.Key {
	case "model.onnxruntime":
		where = "MEGAGIT_ONNXRUNTIME_LIB, or model.onnxruntime in " + describeUserFile()
	case "model.dir":
		where = "`megagit model use --dir DIR` sets it for this machine"
	case "audit.allow":
		return fmt.Sprintf("%s sets %s, which lets a skill the audit holds back reach the agent: only your own config or the environment may set it (%s, or .megagit/local/config.yaml)", i.File, i.Key, describeUserFile())
	}
	return fmt.Sprintf("%s sets %s, which names a library, program or model folder of this machine: only your own config, the environment or a flag may set it (%s)", i.File, i.Key, where)
}

// describeUserFile names the user config for a message.
func describeUserFile() string {
	if f := UserFile(); f != "" {
		return f
	}
	return "${XDG_CONFIG_HOME:-~/.config}/megagit/" + FileName
}

// distrusted says whether raw, the committed file's value of f, is one a
// committed file may not set.
func distrusted(f *field, raw any) bool {
	s, isString := raw.(string)
	switch {
	case f.machine:
		return !isString || s != ""
	case f.key == gateKey:
		return isString && filepath.IsAbs(s)
	}
	return false
}

// CheckAllow reads one audit.allow entry, SKILL:RULE: SKILL a skill name
// or glob, RULE an audit rule, audit.RuleLockDrift or *.
func CheckAllow(a string) error {
	name, rule, ok := strings.Cut(a, ":")
	if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(rule) == "" {
		return fmt.Errorf("%q is not SKILL:RULE (such as deploy-*:download-exec)", a)
	}
	if _, err := path.Match(name, ""); err != nil {
		return fmt.Errorf("%q: %q is not a skill name or glob", a, name)
	}
	if !audit.Allowable(rule) {
		return fmt.Errorf("%q: %q is not an audit rule (%s, %s or *)", a, rule, strings.Join(audit.RuleIDs(), ", "), audit.RuleLockDrift)
	}
	return nil
}
