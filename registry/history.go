package registry

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/ledger"
)

// lazyRE compiles a regular expression on first use, not at program start:
// every megagit command pays for package initialisation (the prompt hook
// on every prompt), and most commands need none of these.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// LogEntry is one recorded event from the git history.
type LogEntry struct {
	Time    time.Time `json:"time"`
	Commit  string    `json:"commit"`
	Skill   string    `json:"skill"`
	Kind    string    `json:"kind"` // verdict | outcome | unarchive | revert | resync | add | remove | rename | import
	Verdict string    `json:"verdict,omitempty"`
	// Outcome is an implicit outcome's value (kind outcome).
	Outcome *float64 `json:"outcome,omitempty"`
	ID      string   `json:"id,omitempty"`
	Session string   `json:"session,omitempty"`
	Source  string   `json:"source,omitempty"`
	Status  string   `json:"status_change,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	From    string   `json:"renamed_from,omitempty"` // a rename's old name
	Author  string   `json:"author"`
}

// trailer blocks: each starts at a Megagit-Verdict / -Action / -Revert line.
func parseTrailers(c *gitstore.Commit) []LogEntry {
	var out []LogEntry
	var cur *LogEntry
	for _, line := range strings.Split(c.Message, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || !strings.HasPrefix(k, "Megagit-") {
			continue
		}
		v = strings.TrimSpace(v)
		start := func(kind string) {
			out = append(out, LogEntry{Time: c.Author.When.UTC(), Commit: c.Hash.String(), Kind: kind, Author: c.Author.Name})
			cur = &out[len(out)-1]
		}
		switch k {
		case "Megagit-Verdict":
			start("verdict")
			cur.Verdict = v
			continue
		case "Megagit-Outcome":
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				continue
			}
			// Commits before outcomes had blocks of their own carried it
			// inside an implicit verdict's block, after its source.
			if cur == nil || cur.Source != ledger.SourceImplicit || cur.Outcome != nil {
				start("outcome")
			}
			cur.Kind, cur.Verdict, cur.Outcome = "outcome", "", &x
			continue
		case "Megagit-Revert":
			start("revert")
			cur.ID = v
			continue
		case "Megagit-Action":
			start(v)
			continue
		}
		if cur == nil {
			continue
		}
		switch k {
		case "Megagit-Skill":
			cur.Skill = v
		case "Megagit-Id":
			cur.ID = v
		case "Megagit-Session":
			cur.Session = v
		case "Megagit-Source":
			cur.Source = v
			if v == ledger.SourceImplicit && cur.Kind == "verdict" {
				cur.Kind, cur.Verdict = "outcome", "" // an old commit's implicit "verdict"
			}
		case "Megagit-Status":
			cur.Status = v
		case "Megagit-Reason":
			cur.Reason = v
		case "Megagit-From":
			cur.From = v
		}
	}
	return out
}

// Log lists megagit events from HEAD back, newest first, optionally for one
// skill: across its renames, so its events under an old name are listed too.
func (r *Registry) Log(skill string, limit int) ([]LogEntry, error) {
	names := map[string]bool{skill: true}
	_, head, err := r.Head()
	if err != nil {
		return nil, err
	}
	if head.IsZero() {
		return nil, nil
	}
	var out []LogEntry
	err = r.git.Log(head, true, func(c *gitstore.Commit) error {
		for _, e := range parseTrailers(c) {
			if skill != "" && !names[e.Skill] {
				continue
			}
			if e.Kind == "rename" && e.From != "" {
				names[e.From] = true // older events carry the old name
			}
			out = append(out, e)
			if limit > 0 && len(out) >= limit {
				return gitstore.ErrStop
			}
		}
		return nil
	})
	return out, err
}

var (
	hexRef  = lazyRE(`^[0-9a-fA-F]{4,40}$`)
	ulidRef = lazyRE(`^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$`)
)

// resolveRevert turns a commit hash prefix or a verdict id into the set of
// verdict ids to undo (and the full commit hash when given one).
func (r *Registry) resolveRevert(ref string) (map[string]bool, string, error) {
	ref = strings.TrimSpace(ref)
	if ulidRef().MatchString(ref) {
		return map[string]bool{strings.ToUpper(ref): true}, "", nil
	}
	var c *gitstore.Commit
	rev := ref
	if r.ref != "" {
		// HEAD is the project's; HEAD~N names the registry's commits.
		if rest, ok := strings.CutPrefix(rev, "HEAD"); ok {
			rev = r.ref.String() + rest
		}
	}
	if h, err := r.git.Resolve(rev); err == nil {
		if c, err = r.git.Commit(h); err != nil {
			return nil, "", fmt.Errorf("%w: %s is not a commit", errkind.ErrInvalid, ref)
		}
	} else if hexRef().MatchString(ref) {
		if c, err = r.findCommit(strings.ToLower(ref)); err != nil {
			return nil, "", err
		}
	} else {
		return nil, "", fmt.Errorf("%w: %q is neither a commit (hash, prefix, HEAD~N) nor a verdict id", ErrNotFound, ref)
	}
	ids := map[string]bool{}
	for _, e := range parseTrailers(c) {
		if (e.Kind == "verdict" || e.Kind == "outcome" || e.Kind == "unarchive" || e.Kind == ledger.ActionUse) && e.ID != "" {
			ids[e.ID] = true
		}
	}
	if len(ids) == 0 {
		return nil, "", fmt.Errorf("%w: commit %s records no verdict (no Megagit-Id trailer)", errkind.ErrInvalid, c.Hash.String()[:12])
	}
	return ids, c.Hash.String(), nil
}

// findCommit resolves a (possibly abbreviated) hash among commits reachable from HEAD.
func (r *Registry) findCommit(prefix string) (*gitstore.Commit, error) {
	if len(prefix) == 40 {
		c, err := r.git.Commit(gitstore.NewHash(prefix))
		if err != nil {
			return nil, fmt.Errorf("%w: commit %s", ErrNotFound, prefix)
		}
		return c, nil
	}
	_, head, err := r.Head()
	if err != nil {
		return nil, err
	}
	if head.IsZero() {
		return nil, fmt.Errorf("%w: commit %s (the branch has no commits)", ErrNotFound, prefix)
	}
	var found *gitstore.Commit
	err = r.git.Log(head, false, func(c *gitstore.Commit) error {
		if strings.HasPrefix(c.Hash.String(), prefix) {
			if found != nil {
				return fmt.Errorf("%w: commit prefix %s is ambiguous; give more characters", errkind.ErrInvalid, prefix)
			}
			found = c
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if found == nil {
		return nil, fmt.Errorf("%w: no commit %s on this branch", ErrNotFound, prefix)
	}
	return found, nil
}
