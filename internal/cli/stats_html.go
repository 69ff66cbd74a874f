package cli

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/megagit/megagit/learn"
)

// The HTML report of `megagit stats --html`: one page, its charts inline
// SVG drawn here, so it needs no script and fetches nothing when opened.

//go:embed statspage/report.html.tmpl
var statsPageText string

var statsPage = template.Must(template.New("stats").Funcs(template.FuncMap{"code": codeSpans}).Parse(statsPageText))

// codeSpans is s as HTML, escaped, each `command` in it set as code.
func codeSpans(s string) template.HTML {
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
		} else {
			b.WriteString(template.HTMLEscapeString(part))
		}
	}
	return template.HTML(b.String())
}

// The page's geometry, in pixels.
const (
	barSpan    = 480 // the longest bar
	valueRoom  = 60  // the value after a bar
	barHeight  = 18
	barGap     = 6
	dailyH     = 160
	dailyLeft  = 40 // the day chart's y axis and its figure
	dayStep    = 24 // at most, from one day's bar to the next: a day is a narrow bar
	minDayStep = 1.0 / 8
)

// The skill names left of the bars are 12px monospace, which gives every
// character one width: the label area is as wide as the longest name, so
// no name is clipped. A name longer than maxLabelChars (a skill id is at
// most 64) is cut at its end, never its start, and whole in its tooltip.
const (
	labelFontPx   = 12
	labelCharPx   = 7.3 // 0.6em and a little over, the advance of the common monospace fonts
	labelPad      = 14
	minLabelChars = 12
	maxLabelChars = 64
)

// outcomeKinds are the stacked bars' parts, in order, with their colours.
var outcomeKinds = []struct{ Name, Color string }{
	{"helpful", "#2f855a"}, {"harmful", "#c53030"}, {"neutral", "#a0aec0"},
	{"implicit-positive", "#68d391"}, {"implicit-negative", "#fc8181"}, {"silent", "#ecc94b"},
}

type svgBar struct {
	Label, Name, Skill, Kind, Color, Title string
	Value                                  int
	X, Y, W, H                             int
	LabelX, ValueX, TextY                  int
	Parts                                  []svgBar
}

// svgDay is one day's bar; fractions of a pixel let a long window fit.
type svgDay struct {
	Label, Title string
	Value        int
	X, Y, W, H   float64
	TextX        float64
	TextY        int
}

type svgChart struct {
	Height int
	// Empty, when set, replaces the chart: why it is empty, what fills it.
	Empty string
	// More, when set, says under the chart what it leaves out.
	More string
	Rows []svgBar
}

type svgDaily struct {
	Height, Base, Top int
	Empty, Most, Span string
	Left, Right       int
	Cols, Ticks       []svgDay
}

type statsPageRow struct {
	Name, Last, Rate, Note                                          string
	Injected, Helpful, Harmful, Neutral, Positive, Negative, Silent int
}

type statsPageData struct {
	Summary, Made      string
	Width, LabelFontPx int
	Injected, Outcomes svgChart
	Daily              svgDaily
	Kinds              []struct{ Name, Color string }
	Pairs              any
	Skills             []statsPageRow
}

// plural is n and the noun for n of them: "1 decision", "9 decisions".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// statsWindow is the window in words: "over the whole decision log" or
// "since 2026-05-01T00:00:00Z".
func statsWindow(j statsJSON) string {
	if j.Since != "" {
		return "since " + j.Since
	}
	return "over the whole decision log"
}

// labelCells is how many monospace cells s takes: a wide (East Asian)
// character takes two.
func labelCells(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x1100 && (r <= 0x115f || r >= 0x2e80 && r <= 0xa4cf || r >= 0xac00 && r <= 0xd7a3 ||
			r >= 0xf900 && r <= 0xfaff || r >= 0xfe30 && r <= 0xfe4f || r >= 0xff00 && r <= 0xff60 ||
			r >= 0xffe0 && r <= 0xffe6 || r >= 0x1f300 && r <= 0x1faff || r >= 0x20000 && r <= 0x3fffd) {
			n++
		}
	}
	return n
}

// labelText is name as drawn left of a bar: whole, or when longer than
// maxLabelChars its start and an ellipsis.
func labelText(name string) string {
	if labelCells(name) <= maxLabelChars {
		return name
	}
	cells := 0
	for i, r := range name {
		w := labelCells(string(r))
		if cells+w > maxLabelChars-1 {
			return name[:i] + "…"
		}
		cells += w
	}
	return name
}

// statsHTML renders the report of j as one self-contained page.
func statsHTML(j statsJSON, now time.Time) ([]byte, error) {
	window := statsWindow(j)
	d := statsPageData{
		Summary: fmt.Sprintf("%s %s; %d injected a skill.", plural(j.Decisions, "decision", "decisions"), window, j.Injecting),
		Made:    now.UTC().Format(time.RFC3339), LabelFontPx: labelFontPx, Kinds: outcomeKinds, Pairs: j.Pairs}
	if j.Decisions == 0 {
		d.Summary = fmt.Sprintf("No decisions %s.", window)
	}

	// The charts draw the skills something happened to, most first: in a
	// catalog of hundreds, a bar for each skill never injected would bury
	// the few that were. The table below them lists every skill.
	outcomes := func(s learn.SkillStats) int {
		return s.Helpful + s.Harmful + s.Neutral + s.Positive + s.Negative + s.Silent
	}
	var injected, judged []learn.SkillStats
	for _, s := range j.Skills {
		if s.Injected > 0 {
			injected = append(injected, s)
		}
		if s.Injected > 0 || outcomes(s) > 0 {
			judged = append(judged, s)
		}
	}
	sort.SliceStable(injected, func(a, b int) bool { return injected[a].Injected > injected[b].Injected })
	sort.SliceStable(judged, func(a, b int) bool {
		if oa, ob := outcomes(judged[a]), outcomes(judged[b]); oa != ob {
			return oa > ob
		}
		return judged[a].Injected > judged[b].Injected
	})

	cells := minLabelChars
	for _, s := range judged {
		cells = max(cells, labelCells(labelText(s.Name)))
	}
	labelWidth := int(float64(cells)*labelCharPx+0.999) + labelPad
	d.Width = labelWidth + barSpan + valueRoom

	most, mostParts := 0, 0
	for _, s := range judged {
		most = max(most, s.Injected)
		mostParts = max(mostParts, outcomes(s))
	}
	scale := func(v, of int) int {
		if v <= 0 || of <= 0 {
			return 0
		}
		return max(1, v*barSpan/of)
	}
	label := func(i int, name string) svgBar {
		y := barGap + i*(barHeight+barGap)
		return svgBar{Label: labelText(name), Name: name, LabelX: labelWidth - 8, TextY: y + barHeight - 5, Y: y}
	}
	for i, s := range injected {
		row := label(i, s.Name)
		row.Value, row.X, row.W, row.H = s.Injected, labelWidth, scale(s.Injected, most), barHeight
		row.Title = s.Name + ": injected " + plural(s.Injected, "time", "times")
		row.ValueX = labelWidth + row.W + 6
		d.Injected.Rows = append(d.Injected.Rows, row)
	}
	for i, s := range judged {
		out := label(i, s.Name)
		x, total := labelWidth, 0
		for k, v := range []int{s.Helpful, s.Harmful, s.Neutral, s.Positive, s.Negative, s.Silent} {
			if v == 0 {
				continue
			}
			w := scale(v, mostParts)
			out.Parts = append(out.Parts, svgBar{Skill: s.Name, Kind: outcomeKinds[k].Name, Color: outcomeKinds[k].Color, Value: v,
				X: x, Y: out.Y, W: w, H: barHeight, Title: fmt.Sprintf("%s: %d %s", s.Name, v, outcomeKinds[k].Name)})
			x += w
			total += v
		}
		out.Value, out.ValueX = total, x+6
		out.X = labelWidth
		d.Outcomes.Rows = append(d.Outcomes.Rows, out)
	}
	if rest := len(j.Skills) - len(injected); rest > 0 && len(injected) > 0 {
		verb := "were"
		if rest == 1 {
			verb = "was"
		}
		d.Injected.More = fmt.Sprintf("%s %s never injected %s; the table below lists every skill.",
			plural(rest, "other skill", "other skills"), verb, window)
	}
	for _, s := range j.Skills {
		r := statsPageRow{Name: s.Name, Last: "-", Rate: "-", Injected: s.Injected, Helpful: s.Helpful, Harmful: s.Harmful,
			Neutral: s.Neutral, Positive: s.Positive, Negative: s.Negative, Silent: s.Silent}
		if s.LastInjected != "" {
			r.Last = s.LastInjected[:10]
		}
		if s.HelpfulRate != nil {
			r.Rate = fmt.Sprintf("%.0f%%", *s.HelpfulRate*100)
		}
		switch {
		case s.Disabled:
			r.Note = "disabled"
		case s.NeverInjected:
			r.Note = "never injected"
		case s.Unused:
			r.Note = "injected, never used"
		}
		d.Skills = append(d.Skills, r)
	}
	d.Injected.Height = barGap + max(1, len(injected))*(barHeight+barGap)
	d.Outcomes.Height = barGap + max(1, len(judged))*(barHeight+barGap)

	hooks := "the prompt hook (`megagit hook install` sets it up)"
	switch {
	case len(j.Skills) == 0:
		d.Injected.Empty = "No skills yet: `megagit skill add NAME --description ...` adds one, and " + hooks + " injects the few each prompt needs."
		d.Outcomes.Empty = "No verdicts yet: there is no skill to judge."
	case most == 0:
		d.Injected.Empty = fmt.Sprintf("No skill was injected %s: %s injects the few skills a prompt needs and logs each prompt's decision.", window, hooks)
	}
	if d.Outcomes.Empty == "" && mostParts == 0 {
		when := "yet"
		if j.Since != "" {
			when = window
		}
		d.Outcomes.Empty = "No verdicts " + when + ": agents report them in a `<skill-used/>` tag at the end of an answer, and the stop hook records them " +
			"with what came of the session; `megagit verdict NAME HELPFUL --reason ...` records one by hand."
	}

	dailyStats(&d, j, window, hooks)

	var b bytes.Buffer
	if err := statsPage.Execute(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// dailyStats draws the injections per day: one bar a day from the first
// day with a decision to the last, none on a day without (its place
// kept, so the axis is time), each at most dayStep apart; a single day
// is one narrow bar at the left, not a block across the chart.
func dailyStats(d *statsPageData, j statsJSON, window, hooks string) {
	top := 20 // room for the figure over the tallest bar
	d.Daily = svgDaily{Top: top, Base: top + dailyH, Height: top + dailyH + 24, Left: dailyLeft, Right: d.Width - 10}
	perDay := map[string]int{}
	mostDay := 0
	for i, day := range j.Days {
		perDay[day] = j.PerDay[i]
		mostDay = max(mostDay, j.PerDay[i])
	}
	if len(j.Days) == 0 {
		d.Daily.Empty = fmt.Sprintf("No decisions %s: %s logs one for every prompt.", window, hooks)
		return
	}
	if mostDay == 0 {
		d.Daily.Empty = fmt.Sprintf("No skill was injected %s, on any of its %s with a decision: %s injects the few skills a prompt needs.",
			window, plural(len(j.Days), "day", "days"), hooks)
		return
	}
	first, err1 := time.Parse(time.DateOnly, j.Days[0])
	last, err2 := time.Parse(time.DateOnly, j.Days[len(j.Days)-1])
	days := j.Days
	if err1 == nil && err2 == nil && !last.Before(first) {
		days = nil
		for t := first; !t.After(last); t = t.AddDate(0, 0, 1) {
			days = append(days, t.Format(time.DateOnly))
		}
	}
	d.Daily.Most = strconv.Itoa(mostDay)
	total := 0
	for _, n := range j.PerDay {
		total += n
	}
	if len(days) == 1 {
		d.Daily.Span = fmt.Sprintf("On %s: %s.", days[0], plural(total, "injection", "injections"))
	} else {
		d.Daily.Span = fmt.Sprintf("From %s to %s, %s: %s.", days[0], days[len(days)-1], plural(len(days), "day", "days"), plural(total, "injection", "injections"))
	}
	avail := float64(d.Daily.Right - d.Daily.Left - 4)
	step := min(float64(dayStep), max(minDayStep, avail/float64(len(days))))
	w := max(minDayStep, step*0.75)
	if step >= 4 {
		w = step - max(2, step/4)
	}
	crossYears := days[0][:4] != days[len(days)-1][:4]
	ticks := max(1, len(days)*60/int(avail)+1) // a date every 60px or more
	for i, day := range days {
		n := perDay[day]
		h := 0.0
		if n > 0 {
			h = max(1, float64(n*dailyH)/float64(mostDay))
		}
		x := float64(d.Daily.Left+4) + float64(i)*step
		col := svgDay{Label: day, Value: n, X: x, Y: float64(d.Daily.Base) - h, W: w, H: h, TextX: x + w/2,
			Title: day + ": " + plural(n, "injection", "injections")}
		if step >= 16 && n > 0 {
			col.TextY = int(col.Y) - 4
		}
		d.Daily.Cols = append(d.Daily.Cols, col)
		if i%ticks == 0 {
			label := day[5:]
			if crossYears {
				label = day
			}
			d.Daily.Ticks = append(d.Daily.Ticks, svgDay{Label: label, X: x + w/2, TextY: d.Daily.Base + 16})
		}
	}
}
