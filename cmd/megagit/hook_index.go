package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
)

// The prompt hook's compiled index: the ranker documents of every skill,
// gob-encoded in .megagit/local/route-index.gob and keyed by the path, size
// and modification time of every SKILL.md and ledger file (and the skill
// roots), so a hook call skips parsing SKILL.md files unless one changed.
const (
	indexCacheName    = "route-index.gob"
	indexCacheVersion = 1
)

type docCache struct {
	Version int
	Key     string
	Docs    []ranker.Doc
}

// hookRouter builds the prompt hook's router like env.router does, from the
// compiled index when it is fresh.
func hookRouter(e *env) (*router, error) {
	quiet := &app{errOut: discard{}}
	key, err := indexKey(e.reg, e.cfg.Roots)
	if err != nil {
		return nil, err
	}
	var docs []ranker.Doc
	if data, err := e.reg.ReadLocal(indexCacheName); err == nil {
		var c docCache
		if gob.NewDecoder(bytes.NewReader(data)).Decode(&c) == nil && c.Version == indexCacheVersion && c.Key == key {
			docs = c.Docs
		}
	}
	if docs == nil {
		skills, _, err := e.reg.Skills()
		if err != nil {
			return nil, err
		}
		ledgers, err := e.reg.Ledgers()
		if err != nil {
			return nil, err
		}
		docs = skillDocs(skills, ledgers)
		var b bytes.Buffer
		if gob.NewEncoder(&b).Encode(docCache{Version: indexCacheVersion, Key: key, Docs: docs}) == nil {
			_ = e.reg.WriteLocal(indexCacheName, b.Bytes()) // a cache: failing to write it is not an error
		}
	}
	return newRouter(docs, rankerConfig(e.cfg), e.semanticFor(quiet, docs), e.cfg.DynamicK), nil
}

// indexKey fingerprints what the documents are built from.
func indexKey(reg *registry.Registry, roots []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "roots %s\n", strings.Join(roots, ":"))
	stamp := func(p string) {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(h, "%s %d %d\n", p, st.Size(), st.ModTime().UnixNano())
		}
	}
	list := func(dir string) ([]string, error) {
		ents, err := os.ReadDir(dir)
		if os.IsNotExist(err) {
			return nil, nil
		}
		names := make([]string, 0, len(ents))
		for _, e := range ents {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		return names, err
	}
	for _, root := range roots {
		dir := filepath.Join(reg.Root(), filepath.FromSlash(root))
		names, err := list(dir)
		if err != nil {
			return "", err
		}
		for _, n := range names {
			stamp(filepath.Join(dir, n, "SKILL.md"))
		}
	}
	ledger := filepath.Join(reg.Root(), filepath.FromSlash(registry.LedgerDir))
	names, err := list(ledger)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		stamp(filepath.Join(ledger, n))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
