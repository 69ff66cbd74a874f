package skillfile

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/megagit/megagit/lifecycle"
)

// errSpliceCheck means WithEvidence produced a file that does not read back
// as intended; it is a megagit bug, never the user's fault.
var errSpliceCheck = errors.New("internal error: rewritten frontmatter did not read back the same")

// WithEvidence returns the whole file with only the mega_meta block replaced
// (or added as the last frontmatter key), so a verdict commit never touches
// the user's own text: every other byte, the BOM and the line endings stay.
func (f *File) WithEvidence(e lifecycle.Evidence) ([]byte, error) {
	e, err := normalizeEvidence(f.path, e)
	if err != nil {
		return nil, err
	}
	start, end, indent, err := f.evidenceSpan()
	if err != nil {
		return nil, err
	}
	var unknown []*yaml.Node
	if _, v := f.topKey(evidenceKey); v != nil && !fmIsNull(v) {
		if v.Kind != yaml.MappingNode {
			return nil, &FieldError{File: f.path, Line: f.fileLine(v.Line), Field: evidenceKey,
				Msg: "must be a mapping of evidence keys, found " + fmKindName(v) + "; fix or remove it by hand"}
		}
		for i := 0; i < len(v.Content); i += 2 {
			k := v.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, &FieldError{File: f.path, Line: f.fileLine(k.Line), Field: evidenceKey,
					Msg: "has a key that is not a plain word; fix or remove it by hand"}
			}
			// An empty unquoted key (a null: `? ` or `&anchor :`) does not
			// survive being written out again; a quoted "" does.
			if k.Value == "" && k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
				return nil, &FieldError{File: f.path, Line: f.fileLine(k.Line), Field: evidenceKey,
					Msg: `has an empty key; fix or remove it by hand (write "" for an empty string)`}
			}
		}
		unknown = f.parseEvidence().unknown
	}
	block, err := renderEvidence(e, indent, f.eol, unknown)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", f.path, errSpliceCheck, err)
	}
	out := make([]byte, 0, len(f.data)+len(block))
	out = append(out, f.data[:start]...)
	out = append(out, block...)
	out = append(out, f.data[end:]...)
	if err := f.checkSplice(out, e, unknown); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", f.path, errSpliceCheck, err)
	}
	return out, nil
}

// evidenceSpan returns the byte range [start, end) of the mega_meta block
// (start == end: where a new block goes) and the indentation of top-level keys.
//
// The block runs from the mega_meta key's line at most to the line before
// the next top-level key; trailing blank and comment lines are left out,
// as they belong to whatever follows.
func (f *File) evidenceSpan() (start, end int, indent string, err error) {
	cannot := func(n *yaml.Node, why string) error {
		return &FieldError{File: f.path, Line: f.fileLine(n.Line), Field: evidenceKey, Msg: "cannot rewrite the evidence block: " + why}
	}
	docEnd := f.docEndIndex(0)
	if f.root == nil {
		off := f.lineOffset(docEnd)
		return off, off, "", nil
	}
	if f.root.Style&yaml.FlowStyle != 0 {
		return 0, 0, "", cannot(f.root, "the frontmatter is a {flow} mapping; write one key per line")
	}
	ki := -1
	for i := 0; i+1 < len(f.root.Content); i += 2 {
		if k := f.root.Content[i]; k.Kind == yaml.ScalarNode && k.Value == evidenceKey {
			ki = i
		}
	}
	if ki < 0 {
		_, indent, ok := f.keyLine(f.root.Content[0])
		if !ok {
			return 0, 0, "", cannot(f.root.Content[0], "the first key does not start its own line")
		}
		off := f.lineOffset(docEnd)
		return off, off, indent, nil
	}
	key, val := f.root.Content[ki], f.root.Content[ki+1]
	first, indent, ok := f.keyLine(key)
	if !ok {
		return 0, 0, "", cannot(key, "the mega_meta key does not start its own line")
	}
	next := f.docEndIndex(first + 1)
	if ki+2 < len(f.root.Content) {
		nk := f.root.Content[ki+2]
		n, _, ok := f.keyLine(nk)
		if !ok || n <= first {
			return 0, 0, "", cannot(nk, "the key after mega_meta does not start its own line")
		}
		next = n
	}
	// The value ends somewhere after its last node's line. Take the
	// shortest run of lines that, parsed alone, gives the same value: that
	// leaves out trailing comments and blank lines, except where a block
	// scalar owns them ("# x" content lines, blank lines kept by "|+").
	stop := next
	for e := f.maxLineIndex(val, first) + 1; e < next && e-first <= 256 && f.lineOffset(e)-f.lineOffset(first) <= 64<<10; e++ {
		if f.sameValueAlone(first, e, val) {
			stop = e
			break
		}
	}
	return f.lineOffset(first), f.lineOffset(stop), indent, nil
}

// sameValueAlone reports whether frontmatter lines [from, to) parse on
// their own as one key whose value equals val.
func (f *File) sameValueAlone(from, to int, val *yaml.Node) bool {
	var doc yaml.Node
	if yaml.Unmarshal(f.data[f.lineOffset(from):f.lineOffset(to)], &doc) != nil || len(doc.Content) != 1 {
		return false
	}
	m := doc.Content[0]
	return m.Kind == yaml.MappingNode && len(m.Content) == 2 && fmNodesEqual(m.Content[1], val)
}

// keyLine returns the frontmatter line index of a top-level key and the
// spaces before it, and false unless only spaces precede the key on its line.
func (f *File) keyLine(k *yaml.Node) (int, string, bool) {
	i, atStart := f.fmLineIndex(k.Line)
	if !atStart || i >= len(f.lineStart) || k.Column < 1 {
		return 0, "", false
	}
	prefix := f.data[f.lineStart[i]:min(f.lineStart[i]+k.Column-1, len(f.data))]
	if strings.Trim(string(prefix), " ") != "" {
		return 0, "", false
	}
	return i, string(prefix), true
}

// docEndIndex is the index of the first frontmatter line at or after from
// that is a "..." document-end marker, or the number of lines.
func (f *File) docEndIndex(from int) int {
	for i := from; i < len(f.lineStart); i++ {
		if strings.TrimRight(f.lineText(i), " \t\r\n") == "..." {
			return i
		}
	}
	return len(f.lineStart)
}

func (f *File) maxLineIndex(n *yaml.Node, at int) int {
	if i, _ := f.fmLineIndex(n.Line); i > at {
		at = i
	}
	for _, c := range n.Content {
		at = f.maxLineIndex(c, at)
	}
	return at
}

// lineOffset is where frontmatter line i starts (the closing line for i == len).
func (f *File) lineOffset(i int) int {
	if i >= len(f.lineStart) {
		return f.fmEnd
	}
	return f.lineStart[i]
}

func (f *File) lineText(i int) string {
	return string(f.data[f.lineOffset(i):f.lineOffset(i+1)])
}

// checkSplice re-reads the rewritten file and confirms that the evidence,
// the other keys, the carried-over unknown keys and the body came through.
func (f *File) checkSplice(out []byte, e lifecycle.Evidence, unknown []*yaml.Node) error {
	nf, err := Parse(f.path, out)
	if err != nil {
		return err
	}
	got, err := nf.Evidence()
	if err != nil {
		return err
	}
	if !evidenceEqual(got, e) {
		return fmt.Errorf("evidence reads back as %+v, want %+v", got, e)
	}
	if nf.Body() != f.Body() {
		return errors.New("body changed")
	}
	if !fmNodesEqual(fmWithout(f.root, evidenceKey), fmWithout(nf.root, evidenceKey)) {
		return errors.New("other frontmatter keys changed")
	}
	if !fmNodesEqual(&yaml.Node{Kind: yaml.MappingNode, Content: unknown},
		&yaml.Node{Kind: yaml.MappingNode, Content: nf.parseEvidence().unknown}) {
		return errors.New("unknown mega_meta keys changed")
	}
	return nil
}

// fmWithout is a mapping's pairs minus one key (an empty mapping for nil).
func fmWithout(m *yaml.Node, key string) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode}
	if m == nil {
		return out
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			continue
		}
		out.Content = append(out.Content, m.Content[i], m.Content[i+1])
	}
	return out
}

// fmNodesEqual compares YAML values, ignoring style, position and comments.
func fmNodesEqual(a, b *yaml.Node) bool {
	if a.Kind != b.Kind || a.ShortTag() != b.ShortTag() || len(a.Content) != len(b.Content) {
		return false
	}
	if a.Kind == yaml.ScalarNode && a.Value != b.Value {
		return false
	}
	for i := range a.Content {
		if !fmNodesEqual(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

// WithoutEvidence returns the whole file without its mega_meta block (a
// file without one as it is): the SKILL.md as an agent's own folder holds
// it when megagit gives a skill back, its evidence kept apart.
func (f *File) WithoutEvidence() ([]byte, error) {
	if !f.HasEvidence() {
		return f.data, nil
	}
	start, end, _, err := f.evidenceSpan()
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(f.data)-(end-start))
	out = append(out, f.data[:start]...)
	return append(out, f.data[end:]...), nil
}
