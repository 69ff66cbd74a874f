package skillfile

import (
	"fmt"
	"strings"

	"github.com/megagit/megagit/errkind"
)

// maxNameLength is the longest skill id, the agentskills.io limit.
const maxNameLength = 64

// nameRule is what every name error tells the user.
const nameRule = "a skill name is 1-64 lowercase letters (a-z), digits and hyphens, not starting or ending with a hyphen"

// ValidateName checks a skill id (its folder name) before it is used in a
// path or a commit, so "..", "a/b" and friends can never escape the registry.
func ValidateName(name string) error {
	bad := func(why string) error {
		shown := name
		if len(shown) > 80 {
			shown = shown[:80] + "..."
		}
		return fmt.Errorf("%w: skill name %q %s; %s", errkind.ErrInvalid, shown, why, nameRule)
	}
	if name == "" {
		return fmt.Errorf("%w: skill name is empty; %s", errkind.ErrInvalid, nameRule)
	}
	for i, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			if r >= 'A' && r <= 'Z' {
				return bad(fmt.Sprintf("contains the uppercase letter %q", r))
			}
			return bad(fmt.Sprintf("contains %q at byte %d", r, i+1))
		}
	}
	switch {
	case len(name) > maxNameLength:
		return bad(fmt.Sprintf("is %d characters long", len(name)))
	case name[0] == '-':
		return bad("starts with a hyphen")
	case name[len(name)-1] == '-':
		return bad("ends with a hyphen")
	}
	return nil
}

// ValidateRef checks a name a skill is known by: a skill id, or a plugin
// skill's "plugin:skill" (Claude Code's form), each part a skill id.
func ValidateRef(name string) error {
	if plugin, skill, ok := strings.Cut(name, ":"); ok {
		if err := ValidateName(plugin); err != nil {
			return fmt.Errorf("plugin of %q: %w", name, err)
		}
		return ValidateName(skill)
	}
	return ValidateName(name)
}
