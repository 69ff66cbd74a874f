package regsync

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/gitstore"
)

// What a sync did to the local branch.
const (
	SyncUpToDate    = "up-to-date"
	SyncFastForward = "fast-forward"
	SyncMerge       = "merge"
	SyncPushOnly    = "push"
	SyncConflicted  = "conflict"
)

// DefaultAttempts bounds how often sync merges again when the remote
// moved between its fetch and its push.
const DefaultAttempts = 3

// Options are the settings of one sync.
type Options struct {
	// Remote is the git remote to sync with; "" picks the branch's
	// upstream, else origin, else the only remote.
	Remote string
	// DryRun computes and reports, and changes no branch, file or remote
	// (the fetch still updates the remote-tracking branch, like git fetch).
	DryRun bool
	// MergeFiles merges embedding caches changed on both sides; nil makes
	// such a change a conflict.
	MergeFiles FileMerger
	// Attempts bounds fetch-merge-push rounds (DefaultAttempts when 0).
	Attempts int
	// Progress receives one-line status messages (may be nil).
	Progress func(string)
	// AllowUnrelated merges a remote branch that shares no commit with
	// the local one (over an empty base); without it such a sync is
	// refused, since it is most often a force-push of another history.
	AllowUnrelated bool

	beforePush func(attempt int) // tests: move the remote at the worst moment
}

// Result reports a sync.
type Result struct {
	Remote    string   `json:"remote"`
	URL       string   `json:"url"`
	Branch    string   `json:"branch"`
	Action    string   `json:"action"`
	Before    string   `json:"before"`
	After     string   `json:"after"`
	Pushed    bool     `json:"pushed"`
	DryRun    bool     `json:"dry_run"`
	Attempts  int      `json:"attempts"`
	Conflicts []string `json:"conflicts,omitempty"`
	// Resynced are the skills whose evidence was rebuilt from their
	// merged ledgers (their SKILL.md counted fewer or other verdicts).
	Resynced []string    `json:"resynced,omitempty"`
	Skills   []SkillSync `json:"skills"`
}

// syncStep is the outcome of one merge round.
type syncStep struct {
	head     gitstore.Hash
	needPush bool
}

// Sync shares the registry through a git remote: fetch; then fast-forward,
// or build megagit's own merge commit (see planMerge); then push. When the
// push is rejected because the remote moved, it fetches and merges again,
// at most Attempts times. A conflict stops it before anything local
// changes. The registry lock is held while the local branch is read and
// moved, never across the network.
func Sync(ctx context.Context, rg *registry.Registry, opts Options) (*Result, error) {
	r := reg{rg}
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultAttempts
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
	// The sync lock serialises syncs of one registry: two at once would
	// fetch the same packs and race to merge. Writers of verdicts never
	// wait on it.
	netLock, err := r.Local().AcquireFile(registry.SyncLockFile, 2*time.Minute)
	if err != nil {
		return nil, err
	}
	defer netLock.Release()
	branch, _, err := r.Head()
	if err != nil {
		return nil, err
	}
	name, url, err := r.resolveRemote(opts.Remote, branch)
	if err != nil {
		return nil, err
	}
	res := &Result{Remote: name, URL: gitauth.Redact(url), Branch: branch.Short(), DryRun: opts.DryRun, Skills: []SkillSync{}}
	fetched := false
	var lastErr error
	for attempt := 1; attempt <= opts.Attempts; attempt++ {
		res.Attempts = attempt
		if !fetched {
			progress(fmt.Sprintf("fetching %s (%s)", name, gitauth.Redact(url)))
			if err := r.fetch(ctx, name, url); err != nil {
				return res, err
			}
		}
		fetched = false
		theirs, err := r.remoteHead(name, branch)
		if err != nil {
			return res, err
		}
		step, err := r.syncStep(branch, theirs, name, opts, res)
		if err == nil && !opts.DryRun && (res.Action == SyncFastForward || res.Action == SyncMerge) {
			// What came in may hold ledger lines its SKILL.md does not
			// count (a teammate's plain git edit of a ledger): every
			// skill's evidence is rebuilt from its ledger, in one commit
			// when something changed, pushed with the rest.
			if results, h, rerr := rg.Resync(""); rerr != nil {
				err = rerr
			} else if !h.IsZero() {
				step.head, step.needPush, res.After = h, true, h.String()
				for _, rr := range results {
					res.Resynced = append(res.Resynced, rr.Skill)
				}
			}
		}
		if err != nil || opts.DryRun || !step.needPush {
			return res, err
		}
		if opts.beforePush != nil {
			opts.beforePush(attempt)
		}
		progress(fmt.Sprintf("pushing %s to %s", branch.Short(), name))
		perr := r.push(ctx, name, url, branch, step.head)
		if perr == nil {
			res.Pushed = true
			return res, nil
		}
		if err := r.fetch(ctx, name, url); err != nil {
			return res, fmt.Errorf("push to %s (%s): %w (and fetching again failed: %v)", name, gitauth.Redact(url), redactErr(perr), redactErr(err))
		}
		fetched = true
		now, err := r.remoteHead(name, branch)
		if err != nil {
			return res, err
		}
		if now == theirs {
			return res, fmt.Errorf("push to %s (%s): %w; your commits are safe on the local branch", name, gitauth.Redact(url), redactErr(perr))
		}
		lastErr = perr
		progress(fmt.Sprintf("%s/%s moved during the sync; merging again", name, branch.Short()))
	}
	return res, fmt.Errorf("%w: %s/%s kept moving while megagit pushed (gave up after %d attempts; last: %v); your commits are safe on the local branch: run `megagit sync` again",
		registry.ErrConflict, name, branch.Short(), opts.Attempts, lastErr)
}

// syncStep merges theirs into the local branch under the registry lock.
func (r reg) syncStep(branch gitstore.RefName, theirs gitstore.Hash, remote string, opts Options, res *Result) (syncStep, error) {
	lock, err := r.Local().Acquire(r.Options().LockTimeout)
	if err != nil {
		return syncStep{}, err
	}
	defer lock.Release()
	if _, err := r.RecoverLocked(); err != nil {
		return syncStep{}, err
	}
	cur, ours, err := r.Head()
	if err != nil {
		return syncStep{}, err
	}
	if cur != branch {
		return syncStep{}, fmt.Errorf("%w: the checked-out branch changed to %s during sync", registry.ErrConflict, cur.Short())
	}
	if res.Before == "" {
		res.Before = hashString(ours)
	}
	res.After = hashString(ours)
	kind, base, err := r.relation(ours, theirs)
	if err != nil {
		return syncStep{}, err
	}
	if kind == SyncMerge && base.IsZero() && !opts.AllowUnrelated {
		return syncStep{}, fmt.Errorf("%w: %s/%s shares no commit with your %s (a force-push of another history, or a registry started apart); nothing local was changed: look at it (`git log %s/%s`), then merge the two with `megagit sync --allow-unrelated` if that is what you want",
			ErrUnrelated, res.Remote, res.Branch, res.Branch, res.Remote, res.Branch)
	}
	trees := [3]*gitstore.Tree{}
	for i, h := range []gitstore.Hash{base, ours, theirs} {
		if trees[i], err = r.CommitTree(h); err != nil {
			return syncStep{}, err
		}
	}
	plan, err := r.planMerge(trees[0], trees[1], trees[2], opts.MergeFiles)
	if err != nil {
		return syncStep{}, err
	}
	res.Action = kind
	res.Skills = mergeSkillReports(res.Skills, plan.sortedSkills())
	if len(plan.local) > 0 {
		res.Action = SyncConflicted
		sort.Strings(plan.local)
		res.Conflicts = append(res.Conflicts, plan.local...)
		return syncStep{}, fmt.Errorf("%w: %s/%s adds or changes %s: %s/ holds each machine's own state and never travels through sync; nothing local was changed: stop tracking it on the remote (`git rm -r --cached %s` in a clone that has it, or `megagit doctor --fix` there), commit and push, then sync again",
			registry.ErrConflict, res.Remote, res.Branch, strings.Join(plan.local, ", "), local.MachineDir, local.MachineDir)
	}
	if len(plan.oursLocal) > 0 && (kind == SyncMerge || kind == SyncPushOnly) {
		res.Action = SyncConflicted
		res.Conflicts = append(res.Conflicts, plan.oursLocal...)
		return syncStep{}, fmt.Errorf("%w: your branch tracks %s: %s/ holds this machine's own state, which megagit never pushes; nothing was pushed: run `megagit doctor --fix`, which stops tracking it (keeping the files), then sync again",
			registry.ErrConflict, strings.Join(plan.oursLocal, ", "), local.MachineDir)
	}
	if len(plan.links) > 0 {
		res.Action = SyncConflicted
		var rels []string
		for _, l := range plan.links {
			rels = append(rels, r.RelPath(l))
		}
		res.Conflicts = append(res.Conflicts, rels...)
		return syncStep{}, fmt.Errorf("%w: %s/%s adds or changes %s as a symlink (or a submodule), which megagit never writes from a remote because it could point anywhere on this machine; nothing local was changed: replace it with the file itself on the remote (or merge with git yourself), then sync again",
			registry.ErrConflict, res.Remote, res.Branch, strings.Join(rels, ", "))
	}
	if len(plan.conflicts) > 0 {
		res.Action = SyncConflicted
		for _, c := range plan.conflicts {
			res.Conflicts = append(res.Conflicts, r.RelPath(c))
		}
		return syncStep{}, conflictError(res, base.IsZero() && !ours.IsZero() && !theirs.IsZero())
	}
	step := syncStep{head: ours, needPush: kind == SyncPushOnly || kind == SyncMerge}
	if opts.DryRun || (kind != SyncFastForward && kind != SyncMerge) {
		return step, nil
	}
	ff := kind == SyncFastForward
	message := ""
	if !ff {
		message = mergeMessage(plan, remote, branch)
	}
	h, err := r.CommitMerge(branch, ours, theirs, ff, message, plan.changes)
	if err != nil {
		return syncStep{}, err
	}
	res.After, step.head = h.String(), h
	return step, nil
}

// relation classifies ours against theirs and returns the merge base.
func (r reg) relation(ours, theirs gitstore.Hash) (string, gitstore.Hash, error) {
	switch {
	case ours == theirs:
		return SyncUpToDate, ours, nil
	case theirs.IsZero():
		return SyncPushOnly, theirs, nil
	case ours.IsZero():
		return SyncFastForward, ours, nil
	}
	bases, err := r.Store().MergeBases(ours, theirs)
	if err != nil {
		return "", gitstore.ZeroHash, fmt.Errorf("find merge base: %w", err)
	}
	if len(bases) == 0 {
		return SyncMerge, gitstore.ZeroHash, nil // unrelated histories: merge over an empty base
	}
	base := bases[0] // criss-cross merges: any base works for id-based ledgers
	switch base {
	case theirs:
		return SyncPushOnly, base, nil
	case ours:
		return SyncFastForward, base, nil
	}
	return SyncMerge, base, nil
}

func conflictError(res *Result, unrelated bool) error {
	what := "both sides changed " + strings.Join(res.Conflicts, ", ") + " differently"
	if unrelated {
		what = "the two histories share no commit (the registries were started apart) and each has its own " + strings.Join(res.Conflicts, ", ")
	}
	err := fmt.Errorf("%w: %s; nothing local was changed", registry.ErrConflict, what)
	return &ConflictError{Err: err, Remote: res.Remote, Branch: res.Branch, Paths: res.Conflicts, Unrelated: unrelated}
}

// ErrUnrelated is a sync refused because the remote branch shares no
// commit with the local one (Options.AllowUnrelated merges them). It is an
// ErrConflict for the exit code: two histories to reconcile by choice.
var ErrUnrelated = fmt.Errorf("%w: unrelated histories", registry.ErrConflict)

// ConflictError names the files in real conflict, so the command
// layer can explain how to finish with git.
type ConflictError struct {
	Err            error
	Remote, Branch string
	Paths          []string
	// Unrelated: the two histories share no commit, so a plain `git pull`
	// refuses to merge them.
	Unrelated bool
}

func (e *ConflictError) Error() string { return e.Err.Error() }
func (e *ConflictError) Unwrap() error { return e.Err }

// IsConflict extracts a ConflictError.
func IsConflict(err error) (*ConflictError, bool) {
	var c *ConflictError
	ok := errors.As(err, &c)
	return c, ok
}

func hashString(h gitstore.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// mergeSkillReports folds a retry's report into the first one.
func mergeSkillReports(prev, next []SkillSync) []SkillSync {
	if len(prev) == 0 {
		return next
	}
	idx := map[string]int{}
	for i, s := range prev {
		idx[s.Skill] = i
	}
	rank := map[string]int{SyncUnchanged: 0, SyncUpdated: 1, SyncNew: 2, SyncConflict: 3}
	for _, s := range next {
		i, ok := idx[s.Skill]
		if !ok {
			prev = append(prev, s)
			continue
		}
		p := &prev[i]
		if rank[s.Status] > rank[p.Status] {
			p.Status = s.Status
		}
		p.Received += s.Received
		p.Sent = s.Sent
		p.Paths = append(p.Paths, s.Paths...)
	}
	return prev
}
