package cli

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/learn"
)

// statsFixture is a report with known figures: three skills, two pairs.
func statsFixture() statsJSON {
	half := 0.5
	st := learn.Stats{Decisions: 9, Injecting: 8,
		Skills: []learn.SkillStats{
			{Name: "docker-slim", Injected: 2, LastInjected: "2026-05-02T10:00:00Z", Neutral: 1},
			{Name: "flaky-tests", Injected: 6, LastInjected: "2026-05-03T10:00:00Z", Helpful: 2, Harmful: 2, Positive: 1, Silent: 3, HelpfulRate: &half},
			{Name: "release-notes", NeverInjected: true},
		},
		Pairs:  []learn.Pair{{A: "docker-slim", B: "flaky-tests", Count: 2}},
		Days:   []string{"2026-05-01", "2026-05-02", "2026-05-03"},
		PerDay: []int{2, 3, 3},
	}
	return statsJSON{Stats: st, NeverInjected: []string{"release-notes"}, Unused: []string{}}
}

// TestStatsHTMLInChromium renders the report in headless Chromium: the
// DOM it builds holds every chart's bars with their values, and the
// screenshot shows the bars in their colours. CI installs chromium.
func TestStatsHTMLInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed")
	}
	page, err := statsHTML(statsFixture(), time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "http://", "https://", "<link"} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("the page holds %q: it must need nothing from elsewhere", bad)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		args = append([]string{"--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
			"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=800,1400"}, args...)
		cmd := exec.CommandContext(ctx, chromium, append(args, "file://"+file)...)
		cmd.Env = append(os.Environ(), "HOME="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return out
	}

	dom := string(run("--dump-dom"))
	for _, want := range []string{
		`<svg id="injected"`, `<svg id="outcomes"`, `<svg id="daily"`,
		`data-skill="flaky-tests" data-value="6"`, `data-skill="docker-slim" data-value="2"`,
		`data-skill="flaky-tests" data-kind="harmful" data-value="2"`,
		`data-skill="flaky-tests" data-kind="silent" data-value="3"`,
		`data-day="2026-05-02" data-value="3"`,
		`docker-slim + flaky-tests`, `never injected`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the DOM lacks %s", want)
		}
	}
	// The bars scale with their values: flaky-tests' injection bar is three
	// times docker-slim's.
	width := func(skill string) string {
		m := regexp.MustCompile(`class="bar injected" data-skill="` + skill + `" data-value="\d+" x="\d+" y="\d+" width="(\d+)"`).FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("no injection bar for %s in the DOM", skill)
		}
		return m[1]
	}
	if w1, w2 := width("flaky-tests"), width("docker-slim"); w1 != "480" || w2 != "160" {
		t.Errorf("bar widths %s and %s, want 480 and 160", w1, w2)
	}

	shot := filepath.Join(dir, "shot.png")
	run("--screenshot=" + shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	count := map[[3]uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			count[[3]uint32{r >> 8, g >> 8, bl >> 8}]++
		}
	}
	for name, c := range map[string][3]uint32{"injections (#2b6cb0)": {0x2b, 0x6c, 0xb0}, "harmful (#c53030)": {0xc5, 0x30, 0x30}, "silent (#ecc94b)": {0xec, 0xc9, 0x4b}} {
		if count[c] < 100 {
			t.Errorf("the screenshot shows %d pixels of the %s bars", count[c], name)
		}
	}
}
