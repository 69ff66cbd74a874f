package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Load resolves the settings for a command from FilesFor(file). file may
// not exist; flags may be nil. A changed flag named by a setting's flag tag
// (--top-k for route.top_k) overrides everything else; no other flag does,
// so a flag of the same name meant for something else (the global --dir)
// never leaks into a setting. A bad value is an error naming the field,
// where the value came from and the value.
func Load(file string, flags *pflag.FlagSet) (*Config, []Setting, error) {
	return LoadFiles(FilesFor(file), flags)
}

// LoadFiles is Load from the files given.
func LoadFiles(files Files, flags *pflag.FlagSet) (*Config, []Setting, error) {
	r, err := resolve(files, flags)
	if err != nil {
		return nil, nil, err
	}
	if err := r.unknownErr(); err != nil {
		return nil, nil, err
	}
	if len(r.bad) > 0 {
		return nil, nil, r.bad[0].err
	}
	out := make([]Setting, len(fields))
	for i := range fields {
		f := &fields[i]
		out[i] = Setting{Key: f.key, Value: f.value(r.cfg), Source: r.source(f), Help: f.help}
	}
	return r.cfg, out, nil
}

// resolution is one reading of the settings: viper with every layer, each
// file's layer alone, the decoded Config and what was wrong with it.
type resolution struct {
	files  Files
	flags  *pflag.FlagSet
	v      *viper.Viper // defaults < files < env < flags
	layers []layer      // the files read, lowest first
	cfg    *Config
	bad    []badValue // in the order of fields
}

// layer is one file of the settings.
type layer struct {
	file    string
	v       *viper.Viper
	unknown []string  // keys that are no setting (not checked in the user config)
	ignored []Ignored // the committed file's settings it may not set
	// machineOnly: only the machine settings are taken (the user config,
	// whose other keys LoadUser reads).
	machineOnly bool
}

// sets says whether the layer's value of f counts.
func (l *layer) sets(f *field) bool {
	if !l.v.InConfig(f.key) || (l.machineOnly && !f.machine) {
		return false
	}
	for _, ig := range l.ignored {
		if ig.Key == f.key {
			return false
		}
	}
	return true
}

// badValue is a setting whose value does not decode or pass its check.
type badValue struct {
	f   *field
	err error // names the field, its source and the value; wraps ErrInvalid
}

// resolve reads the files and binds the environment and flags; a file that
// cannot be read or is not YAML is an error, a bad value is not (yet).
func resolve(files Files, flags *pflag.FlagSet) (*resolution, error) {
	r := &resolution{files: files, flags: flags, v: viper.New()}
	for _, lf := range []struct {
		file        string
		committed   bool
		machineOnly bool
	}{{files.Registry, true, false}, {files.User, false, true}, {files.Local, false, false}} {
		if lf.file == "" {
			continue
		}
		if lf.file == files.Local {
			// Never read through a .megagit/local that is a symlink or a file.
			if err := local.CheckLocalDir(filepath.Dir(lf.file)); err != nil {
				return nil, err
			}
		}
		l := layer{file: lf.file, v: viper.New(), machineOnly: lf.machineOnly}
		l.v.SetConfigType("yaml")
		data, err := readConfigFile(lf.file)
		switch {
		case err == nil:
			if err := l.v.ReadConfig(bytes.NewReader(data)); err != nil {
				if lf.machineOnly { // as LoadUser says it: where, never what
					return nil, fmt.Errorf("%w %s: not a YAML mapping of megagit settings%s", ErrInvalid, lf.file, yamlLine(err))
				}
				return nil, fmt.Errorf("%w %s: %v", ErrInvalid, lf.file, err)
			}
		case errors.Is(err, os.ErrNotExist):
			continue
		default:
			return nil, fmt.Errorf("config: %w", err)
		}
		if !lf.machineOnly {
			l.unknown = unknownKeys(l.v, func(k string) bool { return lookup(k) != nil })
		}
		if lf.committed {
			for _, f := range fields {
				if l.v.InConfig(f.key) && distrusted(&f, l.v.Get(f.key)) {
					l.ignored = append(l.ignored, Ignored{File: lf.file, Key: f.key})
				}
			}
		}
		// The main viper gets the file's settings only: an unknown key (which
		// a hook ignores) can then never shadow a known one.
		if err := r.v.MergeConfigMap(l.settings()); err != nil {
			return nil, fmt.Errorf("%w %s: %v", ErrInvalid, lf.file, err)
		}
		r.layers = append(r.layers, l)
	}
	for i := range fields {
		f := &fields[i]
		r.v.SetDefault(f.key, f.def)
		if err := r.v.BindEnv(append([]string{f.key}, f.env...)...); err != nil {
			return nil, err
		}
		if fl := r.flag(f); fl != nil {
			if err := r.v.BindPFlag(f.key, fl); err != nil {
				return nil, err
			}
		}
	}
	return r, r.decode()
}

// settings are the layer's values of the settings it sets, nested as in
// the file.
func (l *layer) settings() map[string]any {
	out := map[string]any{}
	for i := range fields {
		f := &fields[i]
		if !l.sets(f) {
			continue
		}
		parts := strings.Split(f.key, ".")
		m := out
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[parts[len(parts)-1]] = l.value(f)
	}
	return out
}

// value is the layer's raw value of f: a machine setting of the user
// config is a path relative to its folder (or to ~/), made absolute.
func (l *layer) value(f *field) any {
	val := l.v.Get(f.key)
	if s, ok := val.(string); ok && l.machineOnly {
		val = expandPath(s, filepath.Dir(l.file))
	}
	return val
}

// decode unmarshals the settings into r.cfg and checks them, noting every
// bad value in r.bad.
func (r *resolution) decode() error {
	r.cfg, r.bad = &Config{}, nil
	bad := map[string]error{}
	if err := r.v.Unmarshal(r.cfg, viper.DecodeHook(decodeHook)); err != nil {
		for _, e := range fieldErrors(err) {
			named, ok := e.(interface{ Name() string })
			if !ok || lookup(named.Name()) == nil {
				return fmt.Errorf("%w: %v", ErrInvalid, err)
			}
			bad[named.Name()] = errors.Unwrap(e)
		}
	}
	for i := range fields {
		f := &fields[i]
		if bad[f.key] == nil && f.check != nil {
			bad[f.key] = f.check(f.in(r.cfg))
		}
	}
	if bad[gateKey] == nil {
		bad[gateKey] = r.cfg.readGate(r.files.Registry)
	}
	for i := range fields {
		if err := bad[fields[i].key]; err != nil {
			f := &fields[i]
			r.bad = append(r.bad, badValue{f, fmt.Errorf("%w: field %s (from %s): %v", ErrInvalid, f.key, r.source(f), err)})
		}
	}
	for _, l := range r.layers {
		r.cfg.Ignored = append(r.cfg.Ignored, l.ignored...)
	}
	return nil
}

// fieldErrors are the errors of single fields in err: mapstructure joins
// one per field that does not decode, named by its key.
func fieldErrors(err error) []error {
	if _, ok := err.(interface{ Name() string }); ok {
		return []error{err}
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, fieldErrors(e)...)
		}
		return out
	}
	if inner := errors.Unwrap(err); inner != nil {
		return fieldErrors(inner)
	}
	return []error{err}
}

// flag is the command-line flag bound to f, if the command has it.
func (r *resolution) flag(f *field) *pflag.Flag {
	if f.flag == "" || r.flags == nil {
		return nil
	}
	return r.flags.Lookup(f.flag)
}

// source says where viper took f's value from, as its precedence goes:
// "flag --top-k", "env MEGAGIT_ROUTE_TOP_K", "file PATH" or "default". An
// empty variable counts as unset, as it does for viper.
func (r *resolution) source(f *field) string {
	if fl := r.flag(f); fl != nil && fl.Changed {
		return "flag --" + fl.Name
	}
	for _, name := range f.env {
		if val, ok := os.LookupEnv(name); ok && val != "" {
			return "env " + name
		}
	}
	for i := len(r.layers) - 1; i >= 0; i-- {
		if r.layers[i].sets(f) {
			return "file " + r.layers[i].file
		}
	}
	return "default"
}

// unknownErr names the first file holding a key that is no setting (nil
// when none does).
func (r *resolution) unknownErr() error {
	for _, l := range r.layers {
		if len(l.unknown) > 0 {
			return l.unknownErr()
		}
	}
	return nil
}

func (l *layer) unknownErr() error {
	return fmt.Errorf("%w %s: unknown field %s", ErrInvalid, l.file, strings.Join(l.unknown, ", "))
}

// unknownKeys are v's keys that known refuses, sorted: a typo must not be
// silently ignored.
func unknownKeys(v *viper.Viper, known func(string) bool) []string {
	var out []string
	for _, k := range v.AllKeys() {
		if !known(k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// refuseUnknown fails, naming file and every key, when v holds a key that
// is not known.
func refuseUnknown(v *viper.Viper, known map[string]bool, file string) error {
	unknown := unknownKeys(v, func(k string) bool { return known[k] })
	if len(unknown) == 0 {
		return nil
	}
	// Name a few, clipped and escaped: the file may be a link to anything.
	shown := make([]string, 0, 3)
	for _, k := range unknown[:min(3, len(unknown))] {
		if len(k) > 40 {
			k = k[:40] + "…"
		}
		if q := strconv.Quote(k); q[1:len(q)-1] != k {
			k = q // control or odd characters: shown escaped
		}
		shown = append(shown, k)
	}
	if len(unknown) > 3 {
		shown = append(shown, fmt.Sprintf("and %d more", len(unknown)-3))
	}
	return fmt.Errorf("%w %s: unknown field %s", ErrInvalid, file, strings.Join(shown, ", "))
}

// gateKey is the setting readGate reads a file for.
const gateKey = "dynamic_k.gate"

// readGate reads dynamic_k.gate's file, if it names one: relative to the
// registry root (the folder above the config file's .megagit), or to the
// working directory without a config file.
func (c *Config) readGate(file string) error {
	c.DynamicK.Fitted = nil
	switch c.DynamicK.Gate {
	case "", "auto", "off": // empty (an unset variable) is auto
		return nil
	}
	path := c.DynamicK.Gate
	if !filepath.IsAbs(path) && file != "" {
		path = filepath.Join(filepath.Dir(filepath.Dir(file)), path)
	}
	var data []byte
	var err error
	if root := filepath.Dir(filepath.Dir(file)); !filepath.IsAbs(c.DynamicK.Gate) && file != "" {
		data, err = readInside(root, filepath.ToSlash(c.DynamicK.Gate))
	} else {
		data, err = local.ReadRegular(path, local.MaxConfig)
	}
	if err != nil {
		return err
	}
	g, err := ranker.ParseGate(data)
	if err != nil {
		return fmt.Errorf("%s: %v", c.DynamicK.Gate, err)
	}
	c.DynamicK.Fitted = g
	return nil
}

// readConfigFile reads a config file, bounded; a registry's
// (.megagit/config.yaml) under the registry's symlink policy: a symlink out
// of the registry is refused before anything is read, so nothing of its
// target ever shows in an error.
func readConfigFile(file string) ([]byte, error) {
	dir := filepath.Dir(file)
	if filepath.Base(dir) != local.MetaDir {
		return local.ReadRegular(file, local.MaxConfig)
	}
	return readInside(filepath.Dir(dir), local.MetaDir+"/"+filepath.Base(file))
}

// readInside reads rel from the registry at root (ReadInside, with the
// config cap).
func readInside(root, rel string) ([]byte, error) {
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return local.ReadInside(root, rel, local.MaxConfig)
}

// DefaultFile is the commented config.yaml that `megagit init` writes.
func DefaultFile() []byte { return DefaultFileRoots("skills", ".claude/skills") }

// DefaultFileRoots is DefaultFile with other skill roots: a registry kept
// on its own branch inside a project has its skills in .megagit/skills.
func DefaultFileRoots(roots ...string) []byte {
	var b strings.Builder
	b.WriteString("# megagit registry settings (committed). Every key is optional; a missing key\n")
	b.WriteString("# takes the default shown by `megagit config`. Precedence: this file < env\n")
	b.WriteString("# (MEGAGIT_<KEY>, e.g. MEGAGIT_ROUTE_TOP_K; MEGA_EVAL_* for blend weights) < flags.\n")
	b.WriteString("roots:\n")
	for _, r := range roots {
		b.WriteString("  - " + r + "\n")
	}
	b.WriteString("# Skills are also read from the agents' own folders (.claude/skills, .agents/skills,\n")
	b.WriteString("# .gemini/skills, here and in ~/) and the team registry of your user config;\n")
	b.WriteString("# turn a source off with e.g.  sources: {user: false, team: false}\n")
	return []byte(b.String())
}
