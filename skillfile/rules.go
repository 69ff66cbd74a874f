package skillfile

import (
	"fmt"
	"strings"

	"github.com/megagit/megagit/errkind"
	"gopkg.in/yaml.v3"
)

// The agents' own rules of when a skill may reach the model, as Claude
// Code reads them from the frontmatter (and Codex from agents/openai.yaml,
// ParseOpenAIPolicy): megagit obeys them so it never injects what the
// agent itself would not list.

// DisableModelInvocation is Claude Code's `disable-model-invocation:
// true`: the skill is the user's to run (a /name command), never the
// model's to pick. Claude Code takes the boolean true or the string
// "true"; anything else leaves the skill model-invocable.
func (f *File) DisableModelInvocation() bool {
	_, v := f.topKey("disable-model-invocation")
	return v != nil && v.Kind == yaml.ScalarNode && v.Value == "true"
}

// Paths are Claude Code's `paths:` globs, which limit a skill to work on
// matching files: a string of comma-separated globs, or a list of such
// strings (commas inside braces do not split). As Claude Code does, a
// trailing "/**" is dropped (a folder's pattern covers what is inside it)
// and a list of nothing but "**" limits nothing (nil). The globs are not
// checked here (route.CheckGlobs does); an error is a field that is not a
// string or a list of strings.
func (f *File) Paths() ([]string, error) {
	_, v := f.topKey("paths")
	if v == nil || v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return nil, nil
	}
	var raw []string
	switch v.Kind {
	case yaml.ScalarNode:
		if v.ShortTag() != "!!str" {
			return nil, &FieldError{File: f.path, Line: f.fileLine(v.Line), Field: "paths", Msg: "must be a string or a list of strings, found " + fmKindName(v)}
		}
		raw = append(raw, v.Value)
	case yaml.SequenceNode:
		for i, it := range v.Content {
			if it.Kind != yaml.ScalarNode || it.ShortTag() != "!!str" {
				return nil, &FieldError{File: f.path, Line: f.fileLine(it.Line), Field: fmt.Sprintf("paths[%d]", i), Msg: "must be a string (a glob), found " + fmKindName(it)}
			}
			raw = append(raw, it.Value)
		}
	default:
		return nil, &FieldError{File: f.path, Line: f.fileLine(v.Line), Field: "paths", Msg: "must be a string or a list of strings, found " + fmKindName(v)}
	}
	return NormalizePaths(raw), nil
}

// NormalizePaths splits each entry at the commas outside braces, trims
// the globs, drops a trailing "/**" and the empty ones, and returns nil
// when nothing but "**" is left (no limit).
func NormalizePaths(raw []string) []string {
	var out []string
	all := true
	for _, s := range raw {
		for _, g := range splitOutsideBraces(s) {
			g = strings.TrimSpace(g)
			g = strings.TrimSuffix(g, "/**")
			if g == "" {
				continue
			}
			all = all && g == "**"
			out = append(out, g)
		}
	}
	if all {
		return nil
	}
	return out
}

// splitOutsideBraces splits s at the commas not inside {...}.
func splitOutsideBraces(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// OpenAIPolicyFile is where Codex reads a skill's policy, beside its
// SKILL.md.
const OpenAIPolicyFile = "agents/openai.yaml"

// ParseOpenAIPolicy reads Codex's agents/openai.yaml (path names it in
// errors) and says whether the model may pick the skill by itself:
// `policy: {allow_implicit_invocation: false}` makes it the user's to
// mention ($name). An absent key allows it, as in Codex.
func ParseOpenAIPolicy(path string, data []byte) (implicit bool, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return false, fmt.Errorf("%w: %s: %v", errkind.ErrInvalid, path, err)
	}
	if len(doc.Content) == 0 {
		return true, nil // an empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return false, fmt.Errorf("%w: %s: must be a mapping, found %s", errkind.ErrInvalid, path, fmKindName(root))
	}
	policy := mapValue(root, "policy")
	if policy == nil || policy.Kind == yaml.ScalarNode && policy.ShortTag() == "!!null" {
		return true, nil
	}
	if policy.Kind != yaml.MappingNode {
		return false, fmt.Errorf("%w: %s:%d: field policy: must be a mapping, found %s", errkind.ErrInvalid, path, policy.Line, fmKindName(policy))
	}
	v := mapValue(policy, "allow_implicit_invocation")
	if v == nil || v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return true, nil
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
		return false, fmt.Errorf("%w: %s:%d: field policy.allow_implicit_invocation: must be true or false, found %s", errkind.ErrInvalid, path, v.Line, fmKindName(v))
	}
	var b bool
	if err := v.Decode(&b); err != nil {
		return false, fmt.Errorf("%w: %s:%d: field policy.allow_implicit_invocation: %v", errkind.ErrInvalid, path, v.Line, err)
	}
	return b, nil
}

// mapValue is the value of key in a mapping node, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
