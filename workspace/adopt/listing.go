package adopt

import (
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/workspace"
)

// Listing is what the agents' own skill listings still carry of the
// skills megagit routes: what `megagit adopt` would hide (a dry run), as
// doctor weighs it against one prompt's injection.
type Listing struct {
	// Skills counts them; Tokens estimates what their names and
	// descriptions cost in every prompt (4 bytes a token), once per skill
	// whichever agents list it.
	Skills, Tokens int
	// Project and User say which scopes they come from, for the command
	// that hides them (adopt, adopt --scope user).
	Project, User bool
}

// NativeListing is Listing for every scope w adopts (the user registry:
// your personal skills only).
func NativeListing(w *workspace.Workspace) (Listing, error) {
	scope := "all"
	if w.IsUserRegistry() {
		scope = workspace.KindUser
	}
	res, err := Adopt(w, Options{Scope: scope, DryRun: true})
	if err != nil {
		return Listing{}, err
	}
	c, err := w.Catalog()
	if err != nil {
		return Listing{}, err
	}
	byPath := map[string]*workspace.Sourced{}
	for _, s := range append(append([]*workspace.Sourced{}, c.Skills...), c.Shadowed...) {
		byPath[s.AbsPath] = s
	}
	var l Listing
	seen := map[string]bool{}
	for _, h := range res.Hidden {
		if seen[h.SkillPath] {
			continue
		}
		seen[h.SkillPath] = true
		l.Skills++
		l.Project = l.Project || h.Scope == workspace.KindProject
		l.User = l.User || h.Scope == workspace.KindUser
		if s := byPath[h.SkillPath]; s != nil && s.File != nil {
			l.Tokens += ranker.Tokens("- " + s.Name + ": " + s.File.Description() + "\n")
		}
	}
	return l, nil
}
