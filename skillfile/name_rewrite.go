package skillfile

import (
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// WithName returns the whole file with only the value of the frontmatter's
// `name` key replaced by name (a skill's rename): every other byte stays,
// and a quoted name stays quoted the same way.
func (f *File) WithName(name string) ([]byte, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	k, v := f.topKey("name")
	fail := func(msg string) error {
		line := f.closeLine
		if k != nil {
			line = f.fileLine(k.Line)
		}
		return &FieldError{File: f.path, Line: line, Field: "name", Msg: msg}
	}
	if k == nil {
		return nil, fail("missing; add `name: " + name + "` by hand")
	}
	if v.Kind != yaml.ScalarNode || v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return nil, fail("is not a one-line string; set it to `" + name + "` by hand")
	}
	start, ok := f.valueOffset(v)
	if !ok {
		return nil, fail("cannot be found in the file; set it to `" + name + "` by hand")
	}
	var old, repl string
	switch {
	case v.Style&yaml.DoubleQuotedStyle != 0:
		old, repl = `"`+v.Value+`"`, `"`+name+`"`
	case v.Style&yaml.SingleQuotedStyle != 0:
		old, repl = "'"+v.Value+"'", "'"+name+"'"
	default:
		old, repl = v.Value, name
		if !fmPlainSafe(name) {
			repl = fmQuote(name)
		}
	}
	if !strings.HasPrefix(string(f.data[start:]), old) {
		return nil, fail("is written in a form megagit cannot rewrite; set it to `" + name + "` by hand")
	}
	out := make([]byte, 0, len(f.data)+len(repl)-len(old))
	out = append(out, f.data[:start]...)
	out = append(out, repl...)
	out = append(out, f.data[start+len(old):]...)
	nf, err := Parse(f.path, out)
	if err != nil || nf.Name() != name || nf.Description() != f.Description() || nf.Body() != f.Body() {
		return nil, fail("rewriting it would change more than the name; set it to `" + name + "` by hand")
	}
	return out, nil
}

// valueOffset is the absolute offset of a scalar node in the file, from its
// YAML line and (1-based, in characters) column.
func (f *File) valueOffset(n *yaml.Node) (int, bool) {
	if n.Line < 1 || n.Line > len(f.yamlStart) || n.Column < 1 {
		return 0, false
	}
	off := f.fmStart + f.yamlStart[n.Line-1]
	for i := 1; i < n.Column; i++ {
		if off >= f.fmEnd {
			return 0, false
		}
		_, size := utf8.DecodeRune(f.data[off:f.fmEnd])
		off += size
	}
	return off, off < f.fmEnd
}
