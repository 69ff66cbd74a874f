package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/megagit/megagit/registry/local"
)

// Init makes dir a registry: git init when it is not inside a repository,
// then .megagit/config.yaml, the union merge rule for ledgers and the ignore
// rule for .megagit/local/, all in one commit.
func Init(dir string, configYAML []byte, opts Options) (*Registry, plumbing.Hash, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	if _, err := os.Stat(filepath.Join(abs, local.MetaDir)); err == nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("%w: %s is already a megagit registry", ErrExists, abs)
	}
	if _, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true}); errors.Is(err, git.ErrRepositoryNotExists) {
		if _, err := git.PlainInitWithOptions(abs, &git.PlainInitOptions{
			InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
		}); err != nil {
			return nil, plumbing.ZeroHash, fmt.Errorf("git init %s: %w", abs, err)
		}
	} else if err != nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("open git repository at %s: %w", abs, err)
	}
	if err := os.MkdirAll(filepath.Join(abs, filepath.FromSlash(local.LocalDirName)), 0o755); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	r, err := openAt(abs, opts)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	hash, err := r.writeLockedRaw(func() (string, []Change, error) {
		changes := []Change{{Path: local.ConfigPath, Data: configYAML}}
		for _, f := range []struct {
			path  string
			lines []string
		}{
			// The second line covers the evidence of read-only skills (a
			// user's ~/.claude/skills): `*` does not cross a folder.
			{".gitattributes", []string{".megagit/ledger/*.jsonl merge=union", ".megagit/ledger/native/*.jsonl merge=union"}},
			{".gitignore", []string{"/.megagit/local/"}},
		} {
			old, err := os.ReadFile(r.abs(f.path))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return "", nil, err
			}
			data := string(old)
			for _, line := range f.lines {
				if hasLine(data, line) {
					continue
				}
				if data != "" && !strings.HasSuffix(data, "\n") {
					data += "\n"
				}
				data += line + "\n"
			}
			if data != string(old) {
				changes = append(changes, Change{Path: f.path, Data: []byte(data)})
			}
		}
		return "megagit: init registry\n\nMegagit-Action: init\n", changes, nil
	})
	if err != nil {
		os.RemoveAll(filepath.Join(abs, local.MetaDir)) // leave no half registry behind
		return nil, plumbing.ZeroHash, err
	}
	return r, hash, nil
}

// IgnoresLocal reports whether the registry's .gitignore keeps
// .megagit/local/ out of commits: init writes the rule, but a clone of a
// registry made by hand may lack it.
func (r *Registry) IgnoresLocal() bool {
	ignore, _ := os.ReadFile(r.abs(".gitignore"))
	return hasLine(string(ignore), "/"+local.LocalDirName+"/") || hasLine(string(ignore), local.LocalDirName+"/")
}

func hasLine(s, line string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}
