package cli

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/learn"
)

// longSkill is a skill name of 60 characters, near the longest a skill
// id may be (64).
const longSkill = "kubernetes-helm-chart-upgrade-rollback-and-canary-deployment"

// statsFixture is a report with known figures: four skills (one of them
// with a 60-character name), one pair, three days.
func statsFixture() statsJSON {
	half := 0.5
	st := learn.Stats{Decisions: 9, Injecting: 8,
		Skills: []learn.SkillStats{
			{Name: "docker-slim", Injected: 2, LastInjected: "2026-05-02T10:00:00Z", Neutral: 1},
			{Name: "flaky-tests", Injected: 6, LastInjected: "2026-05-03T10:00:00Z", Helpful: 2, Harmful: 2, Positive: 1, Silent: 3, HelpfulRate: &half},
			{Name: longSkill, Injected: 1, LastInjected: "2026-05-01T10:00:00Z", Unused: true},
			{Name: "release-notes", NeverInjected: true},
		},
		Pairs:  []learn.Pair{{A: "docker-slim", B: "flaky-tests", Count: 2}},
		Days:   []string{"2026-05-01", "2026-05-02", "2026-05-03"},
		PerDay: []int{3, 3, 3},
	}
	return statsJSON{Stats: st, NeverInjected: []string{"release-notes"}, Unused: []string{}}
}

// statsPageOf renders j as the page, failing the test on an error.
func statsPageOf(t *testing.T, j statsJSON) string {
	t.Helper()
	page, err := statsHTML(j, time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

// statsNoVerdicts is the fixture before anyone judged anything: skills
// injected, no verdict, no implicit outcome.
func statsNoVerdicts() statsJSON {
	j := statsFixture()
	j.Skills = slices.Clone(j.Skills)
	for i := range j.Skills {
		s := &j.Skills[i]
		s.Helpful, s.Harmful, s.Neutral, s.Positive, s.Negative, s.Silent, s.HelpfulRate = 0, 0, 0, 0, 0, 0, nil
	}
	return j
}

// TestStatsHTMLCountsInWords: the page counts in words, singular for one,
// and never hedges with "(s)".
func TestStatsHTMLCountsInWords(t *testing.T) {
	one := statsFixture()
	one.Decisions, one.Injecting, one.Days, one.PerDay = 1, 1, []string{"2026-05-03"}, []int{1}
	since := statsFixture()
	since.Since = "2026-05-01T00:00:00Z"
	none := statsJSON{}
	for _, c := range []struct {
		name       string
		j          statsJSON
		want, lack []string
	}{
		{"nine", statsFixture(), []string{"9 decisions over the whole decision log; 8 injected a skill.", "9 injections"}, nil},
		{"one", one, []string{"1 decision over the whole decision log; 1 injected a skill.", "On 2026-05-03: 1 injection."}, []string{"1 decisions", "1 injections"}},
		{"since", since, []string{"9 decisions since 2026-05-01T00:00:00Z;"}, nil},
		{"none", none, []string{"No decisions over the whole decision log."}, []string{"0 decisions"}},
		{"unjudged", statsNoVerdicts(), nil, nil},
	} {
		page := statsPageOf(t, c.j)
		if strings.Contains(page, "(s)") {
			i := strings.Index(page, "(s)")
			t.Errorf("%s: the page says %q", c.name, page[max(0, i-40):i+3])
		}
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q", c.name, w)
			}
		}
		for _, l := range c.lack {
			if strings.Contains(page, l) {
				t.Errorf("%s: the page says %q", c.name, l)
			}
		}
	}
}

// TestStatsHTMLEmptyCharts: a chart with nothing to draw is one sentence
// saying why and what fills it, not rows of empty bars.
func TestStatsHTMLEmptyCharts(t *testing.T) {
	page := statsPageOf(t, statsNoVerdicts())
	if strings.Contains(page, `<svg id="outcomes"`) {
		t.Error("nothing was judged, yet the page draws the outcomes chart")
	}
	for _, want := range []string{`<p class="empty" id="outcomes-empty">No verdicts yet: agents report them in a <code>&lt;skill-used/&gt;</code> tag`,
		`<code>megagit verdict NAME HELPFUL --reason ...</code> records one by hand.`, `<svg id="injected"`, `<svg id="daily"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// A window with no decision: no chart at all, a sentence for each.
	none := statsFixture()
	none.Since, none.Decisions, none.Injecting, none.Days, none.PerDay, none.Pairs = "2999-01-01T00:00:00Z", 0, 0, nil, nil, nil
	none.Skills = slices.Clone(statsNoVerdicts().Skills)
	for i := range none.Skills {
		none.Skills[i].Injected, none.Skills[i].NeverInjected = 0, true
	}
	page = statsPageOf(t, none)
	if strings.Contains(page, "<svg") {
		t.Error("nothing happened in the window, yet the page draws a chart")
	}
	for _, want := range []string{
		`id="injected-empty">No skill was injected since 2999-01-01T00:00:00Z: the prompt hook (<code>megagit hook install</code> sets it up) injects`,
		`id="outcomes-empty">No verdicts since 2999-01-01T00:00:00Z:`,
		`id="daily-empty">No decisions since 2999-01-01T00:00:00Z: the prompt hook`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	page = statsPageOf(t, statsJSON{})
	if !strings.Contains(page, "No skills yet: <code>megagit skill add NAME --description ...</code> adds one") {
		t.Error("a registry without skills does not say how to add one")
	}
}

// TestStatsHTMLLongNames: a long name is drawn whole, in a label area as
// wide as it; a name past the longest skill id keeps its start and is
// whole in its tooltip.
func TestStatsHTMLLongNames(t *testing.T) {
	page := statsPageOf(t, statsFixture())
	want := `<title>` + longSkill + `</title>` + longSkill + `</text>`
	if strings.Count(page, want) != 2 {
		t.Errorf("the page draws %q whole %d times, want 2 (both charts)", longSkill, strings.Count(page, want))
	}
	// Its label area fits 60 monospace characters of 12px (7.2px each).
	m := regexp.MustCompile(`class="bar injected" data-skill="` + longSkill + `" data-value="1" x="(\d+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no injection bar for the long name")
	}
	if x, _ := strconv.Atoi(m[1]); x < 60*7.2+8 {
		t.Errorf("the bars start at x=%d, left of the end of a 60-character name", x)
	}
	huge := statsFixture()
	name := strings.Repeat("abcdefghij", 10)
	huge.Skills = append(slices.Clone(huge.Skills), learn.SkillStats{Name: name, Injected: 1})
	page = statsPageOf(t, huge)
	if cut := `<title>` + name + `</title>` + name[:63] + `…</text>`; !strings.Contains(page, cut) {
		t.Errorf("a 100-character name is not drawn as its first 63 characters and an ellipsis, whole in its title")
	}
}

// TestStatsHTMLDays: one bar a day, narrow whatever the number of days;
// the days between the first and the last keep their places.
func TestStatsHTMLDays(t *testing.T) {
	bars := regexp.MustCompile(`<rect class="bar day" data-day="([0-9-]+)" data-value="(\d+)" x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)"`)
	one := statsFixture()
	one.Days, one.PerDay = []string{"2026-05-03"}, []int{9}
	got := bars.FindAllStringSubmatch(statsPageOf(t, one), -1)
	if len(got) != 1 {
		t.Fatalf("one day: %d bars", len(got))
	}
	if w, _ := strconv.ParseFloat(got[0][3], 64); w > dayStep {
		t.Errorf("one day is a bar %gpx wide, want at most %d", w, dayStep)
	}
	gap := statsFixture()
	gap.Days, gap.PerDay = []string{"2026-04-29", "2026-05-02"}, []int{4, 5}
	got = bars.FindAllStringSubmatch(statsPageOf(t, gap), -1)
	var days []string
	for _, g := range got {
		days = append(days, g[1]+"="+g[2])
	}
	if want := "2026-04-29=4 2026-04-30=0 2026-05-01=0 2026-05-02=5"; strings.Join(days, " ") != want {
		t.Errorf("days %s, want %s", strings.Join(days, " "), want)
	}
}

// TestStatsColumnsNamed: every column of the page's tables and of the
// TSV `megagit stats` prints has a name.
func TestStatsColumnsNamed(t *testing.T) {
	page := statsPageOf(t, statsFixture())
	tables := regexp.MustCompile(`(?s)<table id="(\w+)">(.*?)</table>`).FindAllStringSubmatch(page, -1)
	if len(tables) != 2 {
		t.Fatalf("%d tables, want 2", len(tables))
	}
	for _, tb := range tables {
		rows := regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`).FindAllStringSubmatch(tb[2], -1)
		heads := regexp.MustCompile(`<th[^>]*>([^<]*)</th>`).FindAllStringSubmatch(rows[0][1], -1)
		for i, h := range heads {
			if strings.TrimSpace(h[1]) == "" {
				t.Errorf("table %s: column %d has no name", tb[1], i+1)
			}
		}
		for _, r := range rows[1:] {
			if n := strings.Count(r[1], "<td"); n != len(heads) {
				t.Errorf("table %s: a row of %d cells under %d named columns", tb[1], n, len(heads))
			}
		}
	}

	var out, errOut bytes.Buffer
	if err := printStats(&statsOptions{app: &app{out: &out, errOut: &errOut}}, statsFixture()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	header := strings.Split(lines[0], "\t")
	for i, h := range header {
		if h == "" {
			t.Errorf("TSV column %d has no name: %q", i+1, lines[0])
		}
	}
	for _, l := range lines[1:5] {
		if n := len(strings.Split(l, "\t")); n != len(header) {
			t.Errorf("TSV row of %d cells under %d columns: %q", n, len(header), l)
		}
	}
	if want := "megagit: 9 decisions over the whole decision log, 8 injected a skill\n"; errOut.String() != want {
		t.Errorf("stats says %q, want %q", errOut.String(), want)
	}
}

// chromium runs headless Chromium on file with args, in dir, and returns
// what it prints; it skips the test when Chromium is not installed.
func chromium(t *testing.T, dir, file string, args ...string) []byte {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args = append([]string{"--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=800,1400"}, args...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+file)...)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// measure is a script the test (never the page) appends to a copy of the
// page: it writes where Chromium laid out each skill label and day bar,
// in the chart's own units, into data attributes --dump-dom shows.
const measure = `<script>
for (const t of document.querySelectorAll("svg text.label")) {
  const b = t.getBBox(), drawn = [...t.childNodes].filter(n => n.nodeType === 3).map(n => n.data).join("");
  t.setAttribute("data-box", Math.floor(b.x) + " " + Math.ceil(b.x + b.width) + " " + drawn);
}
for (const r of document.querySelectorAll("svg rect.day")) {
  r.setAttribute("data-drawn", r.getBoundingClientRect().width.toFixed(1));
}
</script>`

// TestStatsHTMLInChromium renders the report in headless Chromium: the
// DOM it builds holds every chart's bars with their values, every skill
// name lies whole inside its chart and left of its bar, and the
// screenshot shows the bars in their colours. CI installs chromium.
func TestStatsHTMLInChromium(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
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
	measured := filepath.Join(dir, "measured.html")
	if err := os.WriteFile(measured, bytes.Replace(page, []byte("</body>"), []byte(measure+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}

	dom := string(chromium(t, dir, file, "--dump-dom"))
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

	// Laid out by Chromium, every name is whole, starts inside its chart
	// and ends left of the bars.
	barX, _ := strconv.Atoi(regexp.MustCompile(`class="bar injected" data-skill="[^"]+" data-value="\d+" x="(\d+)"`).FindStringSubmatch(dom)[1])
	boxes := regexp.MustCompile(`data-box="(-?\d+) (-?\d+) ([^"]*)"`).FindAllStringSubmatch(string(chromium(t, dir, measured, "--dump-dom")), -1)
	// Each chart draws the three skills something happened to, not
	// release-notes, which was never injected (the table lists it).
	if want := 2 * 3; len(boxes) != want {
		t.Fatalf("%d skill labels measured, want %d", len(boxes), want)
	}
	long := false
	for _, b := range boxes {
		left, _ := strconv.Atoi(b[1])
		right, _ := strconv.Atoi(b[2])
		if left < 0 || right > barX {
			t.Errorf("the label %q spans x=%d..%d: the chart starts at 0 and its bars at %d", b[3], left, right, barX)
		}
		long = long || b[3] == longSkill
	}
	if !long {
		t.Errorf("no label reads %q whole", longSkill)
	}

	shot := filepath.Join(dir, "shot.png")
	chromium(t, dir, file, "--screenshot="+shot)
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

// TestStatsHTMLInChromiumEmpty renders a report where nothing was judged
// and all happened on one day: Chromium shows the sentence in place of
// the outcomes chart, and the day is one narrow bar.
func TestStatsHTMLInChromiumEmpty(t *testing.T) {
	j := statsNoVerdicts()
	j.Days, j.PerDay = []string{"2026-05-03"}, []int{9}
	dir := t.TempDir()
	file := filepath.Join(dir, "measured.html")
	page := strings.Replace(statsPageOf(t, j), "</body>", measure+"</body>", 1)
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(chromium(t, dir, file, "--dump-dom"))
	if !strings.Contains(dom, `<p class="empty" id="outcomes-empty">No verdicts yet: agents report them`) || strings.Contains(dom, `<svg id="outcomes"`) {
		t.Error("nothing was judged: the DOM lacks the sentence in place of the outcomes chart")
	}
	m := regexp.MustCompile(`class="bar day" data-day="2026-05-03" data-value="9"[^>]* data-drawn="([0-9.]+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("the day's bar is not drawn")
	}
	if w, _ := strconv.ParseFloat(m[1], 64); w <= 0 || w > dayStep {
		t.Errorf("one day is drawn %gpx wide, want a narrow bar (at most %dpx)", w, dayStep)
	}
}

// In a catalog of hundreds, the charts draw only the skills something
// happened to, most first, and one line says how many more were never
// injected; the table still lists every skill.
func TestStatsHTMLChartsWhatHappened(t *testing.T) {
	j := statsFixture()
	for i := range 300 {
		j.Skills = append(j.Skills, learn.SkillStats{Name: fmt.Sprintf("idle-%03d", i), NeverInjected: true})
	}
	page := statsPageOf(t, j)
	chart := func(id string) string {
		m := regexp.MustCompile(`(?s)<svg id="` + id + `".*?</svg>`).FindString(page)
		if m == "" {
			t.Fatalf("no %s chart", id)
		}
		return m
	}
	injected := chart("injected")
	if strings.Contains(injected, "idle-") || strings.Contains(injected, "release-notes") {
		t.Error("the injections chart draws skills never injected")
	}
	order := regexp.MustCompile(`class="bar injected" data-skill="([^"]+)"`).FindAllStringSubmatch(injected, -1)
	var got []string
	for _, m := range order {
		got = append(got, m[1])
	}
	if want := []string{"flaky-tests", "docker-slim", longSkill}; !slices.Equal(got, want) {
		t.Errorf("injection bars in order %v, want most first %v", got, want)
	}
	if strings.Contains(chart("outcomes"), "idle-") {
		t.Error("the outcomes chart draws skills nothing happened to")
	}
	if !strings.Contains(page, `<p class="note" id="injected-more">301 other skills were never injected over the whole decision log; the table below lists every skill.</p>`) {
		t.Error("the page does not say how many skills the chart leaves out")
	}
	if !strings.Contains(page, "idle-299") {
		t.Error("the table no longer lists every skill")
	}
}
