package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/spf13/cobra"
)

type syncOptions struct {
	app    *app
	remote string
	dryRun bool
	json   bool
	all    bool
}

func newSyncCmd(a *app) *cobra.Command {
	opts := &syncOptions{app: a}
	cmd := &cobra.Command{
		Use:   "sync [--remote NAME] [--dry-run]",
		Short: "Share verdicts through the git remote: fetch, merge ledgers by verdict id, push",
		Long: `sync fetches the remote, then fast-forwards, or builds megagit's own merge
commit when both sides have new commits: ledgers are merged by verdict id,
each touched skill's mega_meta is recomputed from the merged ledger (in time
order, ties by verdict id), and embedding caches are merged row by row. A
file changed differently on both sides (a skill's body, config.yaml) is a
real conflict: sync stops before changing anything and names the files.
Then it pushes; if the remote moved meanwhile it merges again (3 tries).`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return syncRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.remote, "remote", "", "git remote to sync with (default: the branch's upstream, else origin)")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "fetch and report what would happen; change no branch, file or remote")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&opts.all, "all", false, "list unchanged skills too")
	return cmd
}

func syncRun(opts *syncOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	res, err := regsync.Sync(context.Background(), e.reg, regsync.Options{
		Remote:     opts.remote,
		DryRun:     opts.dryRun,
		MergeFiles: mergeEmbeddingCache,
		Progress:   func(s string) { fmt.Fprintf(a.errOut, "megagit: %s\n", s) },
	})
	if res != nil {
		if perr := printSyncReport(opts, res); perr != nil && err == nil {
			err = perr
		}
	}
	if c, ok := regsync.IsConflict(err); ok {
		return withHint(err,
			"to finish with git: `git pull --no-rebase "+c.Remote+" "+c.Branch+"`, resolve those files, `git commit`",
			"then `megagit resync` (rebuilds evidence from the ledgers) and `megagit sync`")
	}
	return err
}

func printSyncReport(opts *syncOptions, res *regsync.Result) error {
	a := opts.app
	if opts.json {
		return printJSON(a.out, res)
	}
	counts := map[string]int{}
	var rows [][]string
	for _, s := range res.Skills {
		counts[s.Status]++
		if s.Status == regsync.SyncUnchanged && s.Sent == 0 && !opts.all {
			continue
		}
		rows = append(rows, []string{s.Skill, s.Status, strconv.Itoa(s.Received), strconv.Itoa(s.Sent)})
	}
	if len(rows) > 0 {
		if err := printTable(a.out, []string{"SKILL", "STATUS", "RECEIVED", "SENT"}, rows); err != nil {
			return err
		}
	}
	what := res.Action
	if res.DryRun {
		what += " (dry run: nothing changed)"
	}
	fmt.Fprintf(a.errOut, "megagit: sync with %s/%s: %s; %d new, %d updated, %d unchanged, %d conflict",
		res.Remote, res.Branch, what, counts[regsync.SyncNew], counts[regsync.SyncUpdated], counts[regsync.SyncUnchanged], counts[regsync.SyncConflict])
	if res.Pushed {
		fmt.Fprintf(a.errOut, "; pushed %s", short12(res.After))
	}
	fmt.Fprintln(a.errOut)
	return nil
}

func short12(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// cacheIndexFile is the part of an embedding cache's index.json the merge
// needs; embedcache owns the format.
type cacheIndexFile struct {
	Model string `json:"model"`
	Dim   int    `json:"dim"`
	Dtype string `json:"dtype"`
	Rows  []struct {
		Skill  string `json:"skill"`
		Field  string `json:"field"`
		SHA256 string `json:"sha256"`
	} `json:"rows"`
}

// mergeEmbeddingCache merges the two sides of one model's cache row by
// row: our rows stay; a (skill, field) only they have is added; when both
// have it with different texts, theirs wins only if ours is still the
// base's (they re-embedded a text we did not touch). Vectors are looked up
// by text sha, so nothing is ever re-embedded here; a row whose text no
// longer matches the merged skill is simply recomputed by the next embed.
func mergeEmbeddingCache(dir string, base, ours, theirs map[string][]byte) (map[string][]byte, error) {
	tmp, err := os.MkdirTemp("", "megagit-cache-merge-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var idx [3]cacheIndexFile
	var caches [3]*embedcache.Cache
	var warned error
	for i, files := range []map[string][]byte{base, ours, theirs} {
		if files["index.json"] == nil {
			continue
		}
		if err := json.Unmarshal(files["index.json"], &idx[i]); err != nil {
			return nil, fmt.Errorf("%s/index.json: %v", dir, err)
		}
		d := filepath.Join(tmp, strconv.Itoa(i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(d, name), data, 0o644); err != nil {
				return nil, err
			}
		}
		caches[i] = embedcache.OpenCache(d, idx[i].Model, idx[i].Dim, func(s string) { warned = fmt.Errorf("%s", s) })
		if warned != nil {
			return nil, warned
		}
	}
	if caches[1] == nil || caches[2] == nil {
		return nil, fmt.Errorf("%s: index.json missing on one side", dir)
	}
	if idx[1].Model != idx[2].Model || idx[1].Dim != idx[2].Dim {
		return nil, fmt.Errorf("%s: the two caches are for different models", dir)
	}
	key := func(skill, field string) string { return skill + "\x00" + field }
	shaOf := func(ix cacheIndexFile) map[string]string {
		m := map[string]string{}
		for _, r := range ix.Rows {
			m[key(r.Skill, r.Field)] = r.SHA256
		}
		return m
	}
	baseSHA, oursSHA, theirsSHA := shaOf(idx[0]), shaOf(idx[1]), shaOf(idx[2])
	type pick struct {
		skill, field, sha string
		from              *embedcache.Cache
	}
	var rows []pick
	for _, row := range idx[1].Rows {
		k := key(row.Skill, row.Field)
		p := pick{row.Skill, row.Field, row.SHA256, caches[1]}
		if t, ok := theirsSHA[k]; ok && t != row.SHA256 && row.SHA256 == baseSHA[k] {
			p.sha, p.from = t, caches[2] // they re-embedded a text we did not touch
		}
		rows = append(rows, p)
	}
	for _, row := range idx[2].Rows {
		if _, ok := oursSHA[key(row.Skill, row.Field)]; !ok {
			rows = append(rows, pick{row.Skill, row.Field, row.SHA256, caches[2]})
		}
	}
	// megagit embed writes rows skill by skill in name order; so does the
	// merge, so the next embed finds nothing to rewrite.
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].skill < rows[j].skill })
	outDir := filepath.Join(tmp, "merged")
	merged := embedcache.OpenCache(outDir, idx[1].Model, idx[1].Dim, nil)
	for _, p := range rows {
		if vec, found := p.from.Get(p.sha); found {
			merged.Put(p.skill, p.field, p.sha, vec)
		}
	}
	if err := merged.Save(idx[1].Dtype == "float16"); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for name := range ours {
		out[name] = ours[name]
	}
	for _, name := range []string{"index.json", "vectors.npy"} {
		data, err := os.ReadFile(filepath.Join(outDir, name))
		if err != nil {
			return nil, err
		}
		out[name] = data
	}
	return out, nil
}
