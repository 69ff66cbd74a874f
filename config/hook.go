package config

import (
	"fmt"
	"reflect"
	"strings"
)

// Problem is a bad value LoadHook set aside: the error Load returns for
// it (naming the field, where the value came from and the value; it
// wraps ErrInvalid) and what the hook used instead.
type Problem struct {
	Err     error
	Instead string // "using the default, 0.1", "using the file's value, 4" or "ignored"
}

// Error is the line for the hook log: what was wrong, and what was used.
func (p Problem) Error() string { return p.Err.Error() + "; " + p.Instead }

// Unwrap is Err, so a Problem is an ErrInvalid.
func (p Problem) Unwrap() error { return p.Err }

// LoadHook resolves the settings for an agent's hook from FilesFor(file),
// which must keep answering whatever a setting says: a value that does
// not decode or pass its check is set aside for the value below it — an
// environment variable's for a file's value, a file's for the value of a
// file below it, else the default — and an unknown key of a file is
// ignored, each reported as a Problem for the hook log, as is a setting
// the committed file may not set (Config.Ignored). A file that cannot be
// read or is not YAML is still an error: which of its settings were meant
// cannot be told.
func LoadHook(file string) (*Config, []Problem, error) {
	return LoadHookFiles(FilesFor(file))
}

// LoadHookFiles is LoadHook from the files given.
func LoadHookFiles(files Files) (*Config, []Problem, error) {
	r, err := resolve(files, nil)
	if err != nil {
		return nil, nil, err
	}
	var problems []Problem
	for _, l := range r.layers {
		if len(l.unknown) > 0 {
			problems = append(problems, Problem{Err: l.unknownErr(), Instead: "ignored"})
		}
	}
	if len(r.bad) > 0 {
		for _, b := range r.bad {
			var raw any = b.f.def
			instead := "using the default, "
			src := r.source(b.f)
			below := strings.HasPrefix(src, "env ") // any file is below the environment
			for i := len(r.layers) - 1; i >= 0; i-- {
				l := &r.layers[i]
				if !below {
					below = src == "file "+l.file
					continue
				}
				if l.sets(b.f) && r.accepts(b.f, l.value(b.f)) {
					raw, instead = l.value(b.f), "using the file's value, "
					break
				}
			}
			r.v.Set(b.f.key, raw)
			val, _ := convert(b.f.typ, raw)
			problems = append(problems, Problem{Err: b.err, Instead: instead + fmt.Sprint(shown(reflect.ValueOf(val)))})
		}
		if err := r.decode(); err != nil || len(r.bad) > 0 {
			// The fallbacks were checked one by one, so this is a bug.
			return nil, nil, fmt.Errorf("%w: the fallbacks of bad settings do not load: %v %v", ErrInvalid, err, r.bad)
		}
	}
	for _, ig := range r.cfg.Ignored {
		problems = append(problems, Problem{Err: ig, Instead: "ignored"})
	}
	return r.cfg, problems, nil
}

// accepts says whether raw is a good value of f: it decodes, passes f's
// check, and, for dynamic_k.gate, names a gate that reads.
func (r *resolution) accepts(f *field, raw any) bool {
	v, err := convert(f.typ, raw)
	if err != nil {
		return false
	}
	if f.check != nil && f.check(reflect.ValueOf(v)) != nil {
		return false
	}
	if f.key == gateKey {
		c := &Config{DynamicK: DynamicK{Gate: v.(string)}}
		return c.readGate(r.files.Registry) == nil
	}
	return true
}
