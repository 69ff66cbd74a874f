package skillfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// fmYAMLErrLine is compiled on first use, not at program start: most
// commands parse no SKILL.md with a YAML error.
var fmYAMLErrLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

func (f *File) parseYAML() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &FieldError{File: f.path, Line: 2, Msg: fmt.Sprintf("malformed YAML frontmatter: %v", r)}
		}
	}()
	if err := f.invalidUTF8(); err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(f.data[f.fmStart:f.fmEnd]))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // empty frontmatter
		}
		return f.yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return f.yamlError(err)
		}
		return &FieldError{File: f.path, Line: f.fileLine(extra.Line), Msg: "frontmatter holds more than one YAML document"}
	}
	if alias := fmFindAlias(&doc); alias != nil {
		return &FieldError{File: f.path, Line: f.fileLine(alias.Line),
			Msg: "YAML aliases (*" + alias.Value + ") are not allowed in SKILL.md frontmatter"}
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return &FieldError{File: f.path, Line: f.fileLine(root.Line),
			Msg: "frontmatter must be a YAML mapping of keys to values, found " + fmKindName(root)}
	}
	if k := fmDuplicateKey(root); k != nil {
		return &FieldError{File: f.path, Line: f.fileLine(k.Line), Field: k.Value, Msg: "key appears more than once"}
	}
	f.root = root
	return nil
}

func (f *File) yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := fmYAMLErrLine().FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		// yaml.v3 reports parser errors ("did not find expected ...") at the
		// 0-based line where the unfinished construct starts, scanner errors
		// 1-based; shift the former so both name the real line.
		if strings.HasPrefix(m[2], "did not find expected") {
			n++
		}
		line, msg = f.fileLine(n), m[2]
	}
	return &FieldError{File: f.path, Line: line, Msg: "malformed YAML frontmatter: " + msg}
}

// invalidUTF8 names the first frontmatter line holding bytes that are not
// UTF-8, its column and the top-level key it belongs to: yaml.v3 refuses
// the document without saying where, and text shown with U+FFFD in their
// place would hide what the file says.
func (f *File) invalidUTF8() error {
	fm := f.data[f.fmStart:f.fmEnd]
	if utf8.Valid(fm) {
		return nil
	}
	key := ""
	for i, line := range bytes.SplitAfter(fm, []byte("\n")) {
		if len(line) > 0 && !strings.ContainsRune(" \t-#\r\n", rune(line[0])) {
			if k, _, ok := bytes.Cut(line, []byte(":")); ok {
				key = string(bytes.TrimSpace(k))
			}
		}
		if utf8.Valid(line) {
			continue
		}
		col := 0
		for col < len(line) {
			r, size := utf8.DecodeRune(line[col:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			col += size
		}
		field := key
		if !utf8.ValidString(field) {
			field = ""
		}
		return &FieldError{File: f.path, Line: i + 2, Field: field,
			Msg: fmt.Sprintf("not valid UTF-8 (byte 0x%02X at column %d); save the file as UTF-8", line[col], utf8.RuneCount(line[:col])+1)}
	}
	return nil
}

// fmFindAlias returns the first alias node, so aliases (and with them
// "billion laughs" documents) are refused before anything expands them.
func fmFindAlias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return n
	}
	for _, c := range n.Content {
		if a := fmFindAlias(c); a != nil {
			return a
		}
	}
	return nil
}

func fmDuplicateKey(m *yaml.Node) *yaml.Node {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if seen[k.Value] {
			return k
		}
		seen[k.Value] = true
	}
	return nil
}

func fmKindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return "a single value (" + strings.TrimPrefix(n.ShortTag(), "!!") + ")"
	}
	return "something else"
}

// fmLineIndex maps a YAML line number (1-based, as in yaml.Node.Line) to the
// index of the frontmatter line holding it, and reports whether that YAML
// line starts exactly at the beginning of the "\n"-split line.
func (f *File) fmLineIndex(yamlLine int) (int, bool) {
	if yamlLine < 1 {
		yamlLine = 1
	}
	if yamlLine > len(f.yamlStart) {
		return len(f.lineStart), true
	}
	off := f.fmStart + f.yamlStart[yamlLine-1]
	i := sort.Search(len(f.lineStart), func(i int) bool { return f.lineStart[i] > off }) - 1
	if i < 0 {
		return 0, false
	}
	return i, f.lineStart[i] == off
}

// fileLine turns a YAML line number into a 1-based line of the whole file.
func (f *File) fileLine(yamlLine int) int {
	i, _ := f.fmLineIndex(yamlLine)
	if i >= len(f.lineStart) {
		return f.closeLine
	}
	return i + 2
}

// topKey returns the key and value nodes of a top-level frontmatter key.
func (f *File) topKey(name string) (key, val *yaml.Node) {
	if f.root == nil {
		return nil, nil
	}
	for i := 0; i+1 < len(f.root.Content); i += 2 {
		if k := f.root.Content[i]; k.Kind == yaml.ScalarNode && k.Value == name {
			return k, f.root.Content[i+1]
		}
	}
	return nil, nil
}

// topString is the text of a scalar top-level key ("" when absent, null or not a scalar).
func (f *File) topString(name string) string {
	_, v := f.topKey(name)
	if v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
		return ""
	}
	return v.Value
}
