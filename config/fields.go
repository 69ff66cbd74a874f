package config

import (
	"fmt"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/megagit/megagit/local"
)

// field is one setting, a leaf of Config, as its tags describe it.
type field struct {
	key   string       // dotted, e.g. "route.top_k"
	index []int        // where it sits in Config (reflect.Value.FieldByIndex)
	typ   reflect.Type // its Go type
	def   string       // its default, written as in the environment
	env   []string     // MEGAGIT_<KEY>, then the older names, first set wins
	flag  string       // the command-line flag that overrides it, if any
	help  string
	check func(reflect.Value) error // nil: any value of its type
	// machine: the setting names a library, program or model folder of
	// this machine, so only the user's own files, the environment or a
	// flag may set it (trust.go).
	machine bool
}

// fields are Config's settings, sorted by key: the one list every other
// view (defaults, environment names, flags, checks, `megagit config`)
// derives from.
var fields = walk(reflect.TypeFor[Config](), "", nil)

// walk reads the settings of struct type t, whose keys start with prefix.
// A malformed tag is a programming error: it panics when the package
// loads, so no test can pass with one.
func walk(t reflect.Type, prefix string, index []int) []field {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		name := sf.Tag.Get("mapstructure")
		if name == "-" {
			continue
		}
		if name == "" {
			panic(fmt.Sprintf("config: %s.%s has no mapstructure tag", t.Name(), sf.Name))
		}
		key, idx := prefix+name, append(append([]int(nil), index...), i)
		if sf.Type.Kind() == reflect.Struct {
			out = append(out, walk(sf.Type, key+".", idx)...)
			continue
		}
		def, ok := sf.Tag.Lookup("default")
		if !ok {
			panic(fmt.Sprintf("config: %s has no default", key))
		}
		check := sf.Tag.Get("check")
		if check == "" && sf.Type == durationType {
			check = "min=0" // no wait, deadline or timeout is negative
		}
		f := field{key: key, index: idx, typ: sf.Type, def: def, env: []string{envName(key)},
			flag: sf.Tag.Get("flag"), help: sf.Tag.Get("help"), check: parseCheck(key, check)}
		switch scope := sf.Tag.Get("scope"); scope {
		case "":
		case "machine":
			f.machine = true
		default:
			panic(fmt.Sprintf("config: %s: unknown scope %q", key, scope))
		}
		if extra := sf.Tag.Get("env"); extra != "" {
			f.env = append(f.env, strings.Split(extra, ",")...)
		}
		v, err := convert(f.typ, def)
		if err == nil && f.check != nil {
			err = f.check(reflect.ValueOf(v))
		}
		if err != nil {
			panic(fmt.Sprintf("config: %s's default: %v", key, err))
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// envName is the MEGAGIT_* variable for a key, e.g. MEGAGIT_ROUTE_TOP_K.
func envName(key string) string {
	return "MEGAGIT_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// EnvNames are the environment variables Load and LoadUser read, and
// those that place the user-level skill folders, in a fixed order: a
// change to any of them can change the config or the skills read.
func EnvNames() []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.env...)
	}
	return append(out, TeamRegistryEnv, UserRegistryEnv, "XDG_CONFIG_HOME", "XDG_DATA_HOME", "HOME")
}

// lookup is the setting of a key, or nil.
func lookup(key string) *field {
	for i := range fields {
		if fields[i].key == key {
			return &fields[i]
		}
	}
	return nil
}

// value is the setting's value in c as `megagit config` shows it: a
// duration in the milliseconds its key counts.
func (f *field) value(c *Config) any { return shown(f.in(c)) }

// in is the setting's field of c.
func (f *field) in(c *Config) reflect.Value { return reflect.ValueOf(c).Elem().FieldByIndex(f.index) }

// parseCheck turns a check tag into the check: oneof=a|b (an empty
// alternative allows the empty string), min=N, positive, fraction (within
// [0, 1]), relpaths (at least one path, each relative and inside the
// registry, neither .git nor .megagit/local) or globs (skill names or globs path.Match reads).
func parseCheck(key, tag string) func(reflect.Value) error {
	name, arg, _ := strings.Cut(tag, "=")
	switch name {
	case "":
		return nil
	case "oneof":
		allowed := strings.Split(arg, "|")
		var named []string
		for _, a := range allowed {
			if a != "" {
				named = append(named, a)
			}
		}
		list := strings.Join(named[:len(named)-1], ", ") + " or " + named[len(named)-1]
		return func(v reflect.Value) error {
			for _, a := range allowed {
				if v.String() == a {
					return nil
				}
			}
			return fmt.Errorf("%q is not %s", v.String(), list)
		}
	case "min":
		limit, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			break
		}
		return func(v reflect.Value) error {
			var ok bool
			if v.CanFloat() {
				ok = v.Float() >= float64(limit)
			} else {
				ok = v.Int() >= limit
			}
			switch {
			case ok:
				return nil
			case limit == 0:
				return fmt.Errorf("must not be negative, not %v", shown(v))
			}
			return fmt.Errorf("must be at least %d, not %v", limit, shown(v))
		}
	case "positive":
		return func(v reflect.Value) error {
			if v.Int() > 0 {
				return nil
			}
			return fmt.Errorf("must be positive, not %v", shown(v))
		}
	case "fraction":
		return func(v reflect.Value) error {
			if f := v.Float(); f >= 0 && f <= 1 {
				return nil
			}
			return fmt.Errorf("must be within [0, 1], not %v", v.Float())
		}
	case "relpaths":
		return func(v reflect.Value) error {
			roots := v.Interface().([]string)
			if len(roots) == 0 {
				return fmt.Errorf("needs at least one folder")
			}
			for _, r := range roots {
				if strings.HasPrefix(r, "/") || strings.Contains("/"+r+"/", "/../") {
					return fmt.Errorf("%q must be a relative path inside the registry", r)
				}
				// In any spelling a file system takes for them: .GIT, .megagit/LOCAL.
				if clean := path.Clean(r); local.HasDotGit(clean) || local.IsLocalPath(clean) {
					return fmt.Errorf("%q is git's own folder or .megagit/local (this machine's own state), never a folder of skills", r)
				}
			}
			return nil
		}
	case "allows":
		return func(v reflect.Value) error {
			for _, a := range v.Interface().(Pairs) {
				if err := CheckAllow(a); err != nil {
					return err
				}
			}
			return nil
		}
	case "globs":
		return func(v reflect.Value) error {
			for _, g := range v.Interface().([]string) {
				if _, err := path.Match(g, ""); err != nil || strings.TrimSpace(g) == "" {
					return fmt.Errorf("%q is not a skill name or glob", g)
				}
			}
			return nil
		}
	}
	panic(fmt.Sprintf("config: %s: unknown check %q", key, tag))
}

// shown is a value as its key counts it (a duration in milliseconds).
func shown(v reflect.Value) any {
	if d, ok := v.Interface().(time.Duration); ok {
		return d.Milliseconds()
	}
	return v.Interface()
}
