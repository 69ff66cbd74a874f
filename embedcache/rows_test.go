package embedcache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// contextTexts are one skill's texts with two helpful contexts and two
// harmful reasons, numbered as routing numbers them (DocText.N).
func contextTexts(skill string) []DocText {
	return append(skillTexts(skill),
		DocText{Skill: skill, Field: "help", N: 0, Text: "stripe webhook signature fails"},
		DocText{Skill: skill, Field: "help", N: 1, Text: "rotate the app secret"},
		DocText{Skill: skill, Field: "reason-harm", N: 0, Text: "rewrote my nginx config"},
		DocText{Skill: skill, Field: "reason-harm", N: 1, Text: "disabled tls checks"})
}

// Two texts of one field both keep their row: the plan writes them all, a
// second plan finds nothing to do, and verify sees no gap.
func TestEveryContextKeepsItsRow(t *testing.T) {
	root := t.TempDir()
	e := &countingEmbedder{dim: 8}
	items := contextTexts("a")
	if summary, _ := embedInto(t, e, root, items, false); !strings.HasPrefix(summary, "embedded 1, kept 0 skills with fake-model (6 of 6 texts computed") {
		t.Fatalf("first embed: %s", summary)
	}
	ins := Inspect(CacheDir(root, e.ID()))
	if ins.Err != nil || len(ins.Rows) != 7 || ins.Format != FormatRows {
		t.Fatalf("cache: %d rows, format %d, %v; want 6 and the anchor", len(ins.Rows), ins.Format, ins.Err)
	}
	if cov := Compare(ins.Rows, items); cov.Skills != 1 || len(cov.Stale)+len(cov.Missing) != 0 {
		t.Fatalf("coverage %+v, want the skill covered", cov)
	}
	if summary, _ := embedInto(t, e, root, items, false); !strings.HasPrefix(summary, "embedded 0, kept 1 skills with fake-model (0 of 6 texts computed") {
		t.Fatalf("second embed: %s", summary)
	}
	for _, it := range items {
		if c := OpenCache(CacheDir(root, e.ID()), CacheKey(e), e.Dim(), nil); !c.has(it) {
			t.Errorf("no row for %s %s #%d", it.Skill, it.Field, it.N)
		}
	}
}

func (c *Cache) has(it DocText) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.byKey[RowOf(it).key()]
	return ok && c.rows[i].SHA256 == TextSHA(it.Text)
}

// A cache of an older megagit (no format, one row per skill and field, the
// last context having replaced the first) is still read: its vectors are
// reused by text, status says what it lacks, and embed adds the rows.
func TestOlderCacheGainsItsRows(t *testing.T) {
	root := t.TempDir()
	e := &countingEmbedder{dim: 8}
	items := contextTexts("a")
	dir := CacheDir(root, e.ID())
	c := OpenCache(dir, CacheKey(e), e.Dim(), nil)
	vecs, err := EmbedDocs(e, c, items)
	if err != nil {
		t.Fatal(err)
	}
	old := OpenCache(dir, CacheKey(e), e.Dim(), nil)
	old.SetAnchor(mustAnchor(t, e))
	for i, it := range items {
		r := RowOf(it)
		r.N = 0 // as an older megagit keyed it: the second replaces the first
		old.Put(r, vecs[i])
	}
	if err := old.Save(false); err != nil {
		t.Fatal(err)
	}
	stripFormat(t, dir)
	if ins := Inspect(dir); ins.Err != nil || ins.Format != 0 || len(ins.Rows) != 5 {
		t.Fatalf("older cache: %d rows, format %d, %v", len(ins.Rows), ins.Format, ins.Err)
	}

	r := Status(StatusInput{Root: root, LocalDir: filepath.Join(root, ".megagit", "local"), Embedder: e, Items: items,
		HeadState: func(string, ...string) (bool, bool) { return false, false }})
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Problem, "written by an older megagit") ||
		!strings.Contains(r.Problems[0].Problem, ": a") || r.Problems[0].Fix != "megagit embed" {
		t.Fatalf("status problems %+v, want one naming the older format, skill a and megagit embed", r.Problems)
	}
	if cov, ok := CommittedCoverage(root, e, items); !ok || len(cov.Stale)+len(cov.Missing) != 1 {
		t.Fatalf("coverage %+v (%v), want skill a lacking rows", cov, ok)
	}

	summary, warns := embedInto(t, e, root, items, false)
	if len(warns) > 0 || !strings.Contains(summary, "(2 of 6 texts computed, rewritten with a row for every text)") {
		t.Fatalf("embed over the older cache: %s, warnings %v; want only the two replaced texts computed", summary, warns)
	}
	if cov, ok := CommittedCoverage(root, e, items); !ok || len(cov.Stale)+len(cov.Missing) != 0 || cov.Skills != 1 {
		t.Fatalf("coverage after embed %+v", cov)
	}
}

func mustAnchor(t *testing.T, e *countingEmbedder) []float32 {
	v, err := EmbedAnchor(e)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// stripFormat rewrites dir's index.json as an older megagit wrote it.
func stripFormat(t *testing.T, dir string) {
	p := filepath.Join(dir, "index.json")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var idx cacheIndex
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	idx.Format = 0
	out, err := json.MarshalIndent(idx, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
