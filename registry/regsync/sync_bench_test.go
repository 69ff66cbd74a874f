package regsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
	"github.com/megagit/megagit/skillfile"
)

// BenchmarkSync10kVerdicts measures sync on a large shared registry: 1,000
// skills, 10,000 verdicts recorded offline, half on each of two clones (in
// batches of 100 per commit, as a busy Stop hook would). Clone a pushes its
// half; clone b then fetches, merges all 1,000 ledgers and frontmatters and
// pushes (the timed "merge" metric); a fast-forwards. Run with
//
//	MEGAGIT_SYNC_BENCH=1 go test ./registry/regsync -run '^$' -bench Sync10k -benchtime 1x
func BenchmarkSync10kVerdicts(b *testing.B) {
	if os.Getenv("MEGAGIT_SYNC_BENCH") == "" {
		b.Skip("set MEGAGIT_SYNC_BENCH=1 (takes about a minute)")
	}
	const skills, verdicts, batch = 1000, 10000, 100
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		team := benchTeam(b, skills)
		a, c := team[0], team[1]
		now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		for n := 0; n < verdicts; n += batch {
			var in []registry.VerdictInput
			for k := 0; k < batch; k++ {
				v := lifecycle.Helpful
				if (n+k)%5 == 0 {
					v = lifecycle.Harmful
				}
				in = append(in, registry.VerdictInput{Skill: fmt.Sprintf("skill-%04d", (n+k*7)%skills), Verdict: v, Context: fmt.Sprintf("task %d", n+k)})
			}
			r := a
			if (n/batch)%2 == 1 {
				r = c
			}
			if _, _, err := r.RecordVerdicts(in, now.Add(time.Duration(n)*time.Second)); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		if _, err := Sync(context.Background(), a, Options{}); err != nil {
			b.Fatal(err)
		}
		push := time.Since(start)
		b.StartTimer()
		start = time.Now()
		res, err := Sync(context.Background(), c, Options{})
		if err != nil {
			b.Fatal(err)
		}
		merge := time.Since(start)
		b.StopTimer()
		if res.Action != SyncMerge || !res.Pushed {
			b.Fatalf("want a pushed merge, got %s", res.Action)
		}
		start = time.Now()
		if _, err := Sync(context.Background(), a, Options{}); err != nil {
			b.Fatal(err)
		}
		ff := time.Since(start)
		b.ReportMetric(push.Seconds(), "push-s")
		b.ReportMetric(merge.Seconds(), "merge-s")
		b.ReportMetric(ff.Seconds(), "fastforward-s")
	}
}

// benchTeam is newTeam for benchmarks: a registry with n skills added in
// one commit, a bare remote, and a second clone.
func benchTeam(b *testing.B, n int) []*registry.Registry {
	b.Helper()
	dir := b.TempDir()
	os.Setenv("GIT_AUTHOR_NAME", "Bench")
	os.Setenv("GIT_AUTHOR_EMAIL", "bench@example.com")
	r, _, err := registry.Init(dir+"/a", []byte("roots: [skills]\n"), registry.Options{Roots: []string{"skills"}})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("skill-%04d", i)
		p := filepath.Join(r.Root(), "skills", name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, skillfile.RenderNew(name, "Benchmark skill number "+name+".", "Do the thing.\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// One commit adds them all, as a plain `git add skills && git commit` would.
	registrytest.Git(b, r, "add", "skills")
	registrytest.Git(b, r, "commit", "-qm", "bench: add skills")
	bare := dir + "/remote.git"
	if _, err := git.PlainInit(bare, true); err != nil {
		b.Fatal(err)
	}
	if err := AddRemote(r, "origin", "file://"+bare); err != nil {
		b.Fatal(err)
	}
	if _, err := Sync(context.Background(), r, Options{}); err != nil {
		b.Fatal(err)
	}
	c, err := Clone(context.Background(), "file://"+bare, dir+"/b", registry.Options{Roots: []string{"skills"}})
	if err != nil {
		b.Fatal(err)
	}
	return []*registry.Registry{r, c}
}
