package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
)

// Init makes dir a registry in the branch layout: git init when it is not
// inside a repository, then .megagit/config.yaml, the union merge rule for
// ledgers and the ignore rule for .megagit/local/, all in one commit.
func Init(dir string, configYAML []byte, opts Options) (*Registry, gitstore.Hash, error) {
	return InitLayout(dir, configYAML, LayoutBranch, opts)
}

// InitLayout is Init in the given layout (LayoutAuto: ChooseLayout's).
// In the ref layout nothing of the project changes: .megagit/ gets its own
// ignore rule and RefFile, and the first commit (config.yaml and the union
// merge rule for ledgers) goes on RefBranch; when that branch exists
// already, here or as a remote's (a teammate's clone), its files are
// checked out into .megagit/ instead and no commit is made.
func InitLayout(dir string, configYAML []byte, layout Layout, opts Options) (*Registry, gitstore.Hash, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, gitstore.ZeroHash, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, gitstore.ZeroHash, err
	}
	if st, err := os.Stat(filepath.Join(abs, local.MetaDir)); err == nil && !st.IsDir() {
		return nil, gitstore.ZeroHash, fmt.Errorf("%w: %s", errkind.ErrInvalid, local.MetaFileError(filepath.Join(abs, local.MetaDir)))
	} else if err == nil {
		return nil, gitstore.ZeroHash, fmt.Errorf("%w: %s is already a megagit registry", ErrExists, abs)
	}
	if inRepo, err := gitstore.IsRepository(abs); err != nil {
		return nil, gitstore.ZeroHash, err
	} else if !inRepo {
		if err := gitstore.Init(abs); err != nil {
			return nil, gitstore.ZeroHash, err
		}
	}
	if layout == LayoutAuto {
		if layout, err = ChooseLayout(abs); err != nil {
			return nil, gitstore.ZeroHash, err
		}
	}
	if err := local.MkdirAll(filepath.Join(abs, filepath.FromSlash(local.MachineDir))); err != nil {
		return nil, gitstore.ZeroHash, err
	}
	if layout == LayoutRef {
		r, hash, err := initRef(abs, configYAML, opts)
		if err != nil {
			os.RemoveAll(filepath.Join(abs, local.MetaDir)) // leave no half registry behind
			return nil, gitstore.ZeroHash, err
		}
		return r, hash, nil
	}
	r, err := openAt(abs, opts)
	if err != nil {
		return nil, gitstore.ZeroHash, err
	}
	hash, err := r.Write(func() (string, []Change, error) {
		changes := []Change{{Path: local.ConfigPath, Data: configYAML}}
		for _, f := range []struct {
			path  string
			lines []string
		}{
			{".gitattributes", []string{ledgerUnionRule, nativeUnionRule}},
			{".gitignore", []string{localIgnoreRule}},
		} {
			old, err := os.ReadFile(r.abs(f.path))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return "", nil, err
			}
			data := withLines(string(old), f.lines...)
			if data != string(old) {
				changes = append(changes, Change{Path: f.path, Data: []byte(data)})
			}
		}
		return "megagit: init registry\n\nMegagit-Action: init\n", changes, nil
	})
	if err != nil {
		os.RemoveAll(filepath.Join(abs, local.MetaDir)) // leave no half registry behind
		return nil, gitstore.ZeroHash, err
	}
	return r, hash, nil
}

// The rules a registry commits: ledgers merge by union under plain git,
// and the per-machine folder stays out of commits.
const (
	ledgerUnionRule = ".megagit/ledger/*.jsonl merge=union"
	// nativeUnionRule covers the evidence of read-only skills (a user's
	// ~/.claude/skills): `*` does not cross a folder.
	nativeUnionRule = ".megagit/ledger/native/*.jsonl merge=union"
	localIgnoreRule = "/.megagit/local/"
)

// initRef lays out a ref-layout registry at abs (see InitLayout).
func initRef(abs string, configYAML []byte, opts Options) (*Registry, gitstore.Hash, error) {
	for _, f := range []struct{ rel, data string }{
		{refIgnoreFile, refIgnoreData},
		{RefFile, RefBranch.String() + "\n"},
	} {
		if err := local.WriteFileAtomic(filepath.Join(abs, filepath.FromSlash(f.rel)), []byte(f.data), 0o644); err != nil {
			return nil, gitstore.ZeroHash, err
		}
	}
	r, err := openAt(abs, opts)
	if err != nil {
		return nil, gitstore.ZeroHash, err
	}
	lock, err := r.Local().Acquire(r.opts.LockTimeout)
	if err != nil {
		return nil, gitstore.ZeroHash, err
	}
	defer lock.Release()
	if hash, err := r.checkoutRegistryBranch(); err != nil || !hash.IsZero() {
		if err == nil {
			err = r.markCheckout(hash)
		}
		return r, hash, err
	}
	changes := []Change{
		{Path: local.ConfigPath, Data: configYAML},
		{Path: ".gitattributes", Data: []byte(ledgerUnionRule + "\n" + nativeUnionRule + "\n")},
		{Path: ".gitignore", Data: []byte(localIgnoreRule + "\n")},
	}
	hash, err := r.commitChanges("megagit: init registry\n\nMegagit-Action: init\n", changes)
	return r, hash, err
}

// IgnoresLocal reports whether the registry's .gitignore keeps
// .megagit/local/ out of commits: init writes the rule, but a clone of a
// registry made by hand may lack it.
func (r *Registry) IgnoresLocal() bool {
	if r.ref != "" {
		return r.ignoresMetaDir()
	}
	ignore, _ := os.ReadFile(r.abs(".gitignore"))
	return hasLine(string(ignore), "/"+local.MachineDir+"/") || hasLine(string(ignore), local.MachineDir+"/")
}

// withLines is s with each line it lacks appended (a .gitignore or
// .gitattributes rule), ending in a newline when it changed.
func withLines(s string, lines ...string) string {
	for _, line := range lines {
		if hasLine(s, line) {
			continue
		}
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		s += line + "\n"
	}
	return s
}

func hasLine(s, line string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}

// ignoresMetaDir reports whether .megagit/.gitignore keeps the whole
// folder out of the project's commits (the ref layout's rule).
func (r *Registry) ignoresMetaDir() bool {
	data, _ := os.ReadFile(r.abs(refIgnoreFile))
	return hasLine(string(data), "*")
}

// InitPreview is Init (branch layout) of a registry no one sees, in a
// folder of its own: a dry run's stand-in for one not created yet. Its
// first commit is authored by megagit, so it needs no git identity.
func InitPreview(dir string, configYAML []byte, opts Options) (*Registry, gitstore.Hash, error) {
	if err := gitstore.Init(dir); err != nil {
		return nil, gitstore.ZeroHash, err
	}
	st, err := gitstore.Open(dir, "")
	if err != nil {
		return nil, gitstore.ZeroHash, err
	}
	if err := st.SetLocalIdentity("megagit", "megagit@localhost"); err != nil {
		return nil, gitstore.ZeroHash, err
	}
	return InitLayout(dir, configYAML, LayoutBranch, opts)
}
