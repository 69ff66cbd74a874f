package skillfile

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/megagit/megagit/errkind"
	"gopkg.in/yaml.v3"
)

// MaxSize bounds what Parse accepts, so a huge or hostile
// file fails at once with a clear message instead of exhausting memory.
const MaxSize = 4 << 20

// FieldError points the user at the exact file, line and field to fix.
// It matches errkind.ErrInvalid with errors.Is, so the command layer maps it to the
// "invalid input" exit code.
type FieldError struct {
	File  string
	Line  int // 1-based; 0 when unknown
	Field string
	Msg   string
}

// Error renders "path:line: field f: msg", leaving out the unknown parts.
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString("field " + e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Is makes every FieldError an errkind.ErrInvalid for exit-code mapping.
func (e *FieldError) Is(target error) bool { return target == errkind.ErrInvalid }

// File is a parsed SKILL.md that remembers its exact bytes, so the
// evidence block can be rewritten without disturbing anything else.
type File struct {
	path      string
	data      []byte
	bom       bool
	eol       string // line ending of the opening "---" line, used for new lines
	fmStart   int    // offset of the first frontmatter line
	fmEnd     int    // offset of the closing "---" line
	bodyStart int    // offset just after the closing line
	closeLine int    // 1-based file line of the closing "---"
	lineStart []int  // absolute offsets where frontmatter lines ("\n"-split) begin
	yamlStart []int  // offsets (relative to fmStart) where YAML's own lines begin
	root      *yaml.Node
}

var fmUTF8BOM = []byte("\xEF\xBB\xBF")

// Parse reads a SKILL.md from memory. The path is only used in
// error messages. Errors are *FieldError values naming the path and line.
func Parse(path string, data []byte) (*File, error) {
	if len(data) > MaxSize {
		return nil, &FieldError{File: path, Msg: fmt.Sprintf(
			"file is %d bytes, larger than the %d-byte (4 MiB) limit for a SKILL.md", len(data), MaxSize)}
	}
	f := &File{path: path, data: data, eol: "\n"}
	off := 0
	if bytes.HasPrefix(data, fmUTF8BOM) {
		f.bom = true
		off = len(fmUTF8BOM)
	}
	first, next, ok := fmLine(data, off)
	if !fmIsDelim(first) {
		return nil, &FieldError{File: path, Line: 1, Msg: `must start with a "---" line opening the YAML frontmatter`}
	}
	if !ok {
		return nil, &FieldError{File: path, Line: 1, Msg: `frontmatter is never closed by a "---" line`}
	}
	if strings.HasSuffix(first, "\r") {
		f.eol = "\r\n"
	}
	f.fmStart = next
	closed := false
	for pos, n := next, 2; pos < len(data); n++ {
		line, end, _ := fmLine(data, pos)
		if fmIsDelim(line) {
			f.fmEnd, f.bodyStart, f.closeLine, closed = pos, end, n, true
			break
		}
		f.lineStart = append(f.lineStart, pos)
		pos = end
	}
	if !closed {
		return nil, &FieldError{File: path, Line: 1, Msg: `frontmatter opened on line 1 is never closed by a "---" line`}
	}
	f.yamlStart = fmYAMLLineStarts(data[f.fmStart:f.fmEnd])
	if err := f.parseYAML(); err != nil {
		return nil, err
	}
	return f, nil
}

// fmLine returns the line starting at off (with its "\r" but without "\n"),
// the offset of the next line and whether a "\n" ended it.
func fmLine(data []byte, off int) (string, int, bool) {
	i := bytes.IndexByte(data[off:], '\n')
	if i < 0 {
		return string(data[off:]), len(data), false
	}
	return string(data[off : off+i]), off + i + 1, true
}

func fmIsDelim(line string) bool { return strings.TrimRight(line, " \t\r") == "---" }

// fmYAMLLineStarts lists where YAML's scanner starts a new line: it also
// breaks on a lone "\r", NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR, so its
// line numbers can run ahead of a "\n" count.
func fmYAMLLineStarts(b []byte) []int {
	starts := []int{0}
	for i := 0; i < len(b); {
		switch {
		case b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n':
			i += 2
		case b[i] == '\r' || b[i] == '\n':
			i++
		case b[i] == 0xC2 && i+1 < len(b) && b[i+1] == 0x85:
			i += 2
		case b[i] == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9):
			i += 3
		default:
			i++
			continue
		}
		starts = append(starts, i)
	}
	return starts
}

// Path is the path the file was parsed under, for messages.
func (f *File) Path() string { return f.path }

// Name is the frontmatter `name`; the folder name stays the skill id.
func (f *File) Name() string { return f.topString("name") }

// Description is the frontmatter `description` on one line, whatever YAML
// form it was written in, so it can be shown and indexed as is.
func (f *File) Description() string {
	return strings.Join(strings.Fields(f.topString("description")), " ")
}

// WhenToUse is the when_to_use field, whitespace collapsed ("" when
// absent): Claude Code's natural-language "load this skill when ...",
// which it shows the model after the description.
func (f *File) WhenToUse() string {
	return strings.Join(strings.Fields(f.topString("when_to_use")), " ")
}

// Listing is what an agent lists for the skill: the description, then
// when_to_use when there is one, as Claude Code joins them. It is the text
// routing reads and shows as the skill's description.
func (f *File) Listing() string {
	d, w := f.Description(), f.WhenToUse()
	if w == "" {
		return d
	}
	if d == "" {
		return w
	}
	return d + " " + w
}

// Raw is the file exactly as parsed, so callers can tell whether a rewrite
// changed anything; do not modify it.
func (f *File) Raw() []byte { return f.data }

// Body is everything after the closing "---" line, byte for byte.
func (f *File) Body() string { return string(f.data[f.bodyStart:]) }

// HasEvidence reports whether the file carries a mega_meta block at all.
func (f *File) HasEvidence() bool {
	k, _ := f.topKey(evidenceKey)
	return k != nil
}

// RenderNew writes the SKILL.md of a new skill in the layout hosts expect.
func RenderNew(name, description, body string) []byte {
	if body == "" {
		body = "# " + name + "\n"
	}
	var b strings.Builder
	b.WriteString("---\nname: ")
	if fmPlainSafe(name) {
		b.WriteString(name)
	} else {
		b.WriteString(fmQuote(name))
	}
	b.WriteString("\ndescription: " + fmQuote(description) + "\n---\n\n" + body)
	return []byte(b.String())
}

// fmPlainSafe reports whether s can be written unquoted and still read back
// as the same string by YAML 1.1 and 1.2 parsers (so "123", "true" or "no"
// get quotes).
func fmPlainSafe(s string) bool {
	if ValidateName(s) != nil {
		return false
	}
	switch s {
	case "y", "n", "yes", "no", "on", "off":
		return false
	}
	var v any
	if yaml.Unmarshal([]byte(s), &v) != nil {
		return false
	}
	str, ok := v.(string)
	return ok && str == s
}
