package route

import (
	"fmt"
	"path"
	"strings"

	"github.com/megagit/megagit/ranker"
)

// The configuration's deny: and force: lists name skills by name or by
// glob (path.Match: "*" matches any run of characters but "/", which no
// skill name holds, so "db-*" names every db- skill and "tool:*" every
// skill of a plugin called tool).

// MatchName is the first of globs that matches name ("" when none).
func MatchName(globs []string, name string) string {
	for _, g := range globs {
		if ok, err := path.Match(g, name); err == nil && ok {
			return g
		}
	}
	return ""
}

// CheckNameGlobs refuses a glob path.Match cannot read.
func CheckNameGlobs(globs []string) error {
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("%q is not a skill name or glob: %v", g, err)
		}
	}
	return nil
}

// nameMask marks, in doc order, the docs globs name (nil: none).
func nameMask(docs []ranker.Doc, globs []string) []bool {
	if len(globs) == 0 {
		return nil
	}
	mask := make([]bool, len(docs))
	for i, d := range docs {
		mask[i] = MatchName(globs, d.ID) != ""
	}
	return mask
}

// Allowed says whether allow (the config's audit.allow: SKILL:RULE, SKILL
// a name or glob, RULE a rule or *) lets skill through rule.
func Allowed(allow []string, skill, rule string) bool {
	for _, a := range allow {
		name, r, ok := strings.Cut(a, ":")
		if !ok || (r != rule && r != "*") {
			continue
		}
		if m, err := path.Match(name, skill); err == nil && m {
			return true
		}
	}
	return false
}

// HeldMask marks, in doc order, the skills a Doc.Held rule that allow
// does not allow holds back (nil: none is).
func HeldMask(docs []ranker.Doc, allow []string) []bool {
	var mask []bool
	for i, d := range docs {
		for _, rule := range d.Held {
			if !Allowed(allow, d.ID, rule) {
				if mask == nil {
					mask = make([]bool, len(docs))
				}
				mask[i] = true
				break
			}
		}
	}
	return mask
}
