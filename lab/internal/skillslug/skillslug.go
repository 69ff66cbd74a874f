// Package skillslug turns a free-form name (a package's, a tool's) into the
// shape of a skill id, for the scripts that build benchmark registries.
package skillslug

import "strings"

// Slug lowercases s and keeps its ASCII letters and digits, every other run
// of characters becoming one hyphen, with no hyphen at either end. It may
// be empty or longer than an id may be: callers trim and check it.
func Slug(s string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	return b.String()
}
