package cli

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"time"
)

// The HTML report of `megagit stats --html`: one page, its charts inline
// SVG drawn here, so it needs no script and fetches nothing when opened.

//go:embed statspage/report.html.tmpl
var statsPageText string

var statsPage = template.Must(template.New("stats").Parse(statsPageText))

// The page's geometry, in pixels.
const (
	pageWidth  = 760
	labelWidth = 220 // the skill names left of the bars
	barHeight  = 18
	barGap     = 6
	dailyH     = 160
)

// outcomeKinds are the stacked bars' parts, in order, with their colours.
var outcomeKinds = []struct{ Name, Color string }{
	{"helpful", "#2f855a"}, {"harmful", "#c53030"}, {"neutral", "#a0aec0"},
	{"implicit-positive", "#68d391"}, {"implicit-negative", "#fc8181"}, {"silent", "#ecc94b"},
}

type svgBar struct {
	Label, Skill, Kind, Color string
	Value                     int
	X, Y, W, H                int
	LabelX, ValueX, TextY     int
	Parts                     []svgBar
}

type svgChart struct {
	Height int
	Rows   []svgBar
	Cols   []svgBar
	Ticks  []svgBar
}

type statsPageRow struct {
	Name, Last, Rate, Note                                          string
	Injected, Helpful, Harmful, Neutral, Positive, Negative, Silent int
}

type statsPageData struct {
	Window, Made                string
	Decisions, Injecting, Width int
	Injected, Outcomes, Daily   svgChart
	Kinds                       []struct{ Name, Color string }
	Pairs                       any
	Skills                      []statsPageRow
}

// statsHTML renders the report of j as one self-contained page.
func statsHTML(j statsJSON, now time.Time) ([]byte, error) {
	d := statsPageData{Window: "The whole decision log", Made: now.UTC().Format(time.RFC3339),
		Decisions: j.Decisions, Injecting: j.Injecting, Width: pageWidth, Kinds: outcomeKinds, Pairs: j.Pairs}
	if j.Since != "" {
		d.Window = "Since " + j.Since
	}
	span := pageWidth - labelWidth - 60 // room for the value after the bar
	most, mostParts := 0, 0
	for _, s := range j.Skills {
		most = max(most, s.Injected)
		mostParts = max(mostParts, s.Helpful+s.Harmful+s.Neutral+s.Positive+s.Negative+s.Silent)
	}
	scale := func(v, of int) int {
		if v <= 0 || of <= 0 {
			return 0
		}
		return max(1, v*span/of)
	}
	for i, s := range j.Skills {
		y := barGap + i*(barHeight+barGap)
		row := svgBar{Label: s.Name, Value: s.Injected, X: labelWidth, Y: y, W: scale(s.Injected, most), H: barHeight,
			LabelX: labelWidth - 8, TextY: y + barHeight - 4}
		row.ValueX = labelWidth + row.W + 6
		d.Injected.Rows = append(d.Injected.Rows, row)

		out := svgBar{Label: s.Name, LabelX: labelWidth - 8, TextY: y + barHeight - 4}
		x := labelWidth
		for k, v := range []int{s.Helpful, s.Harmful, s.Neutral, s.Positive, s.Negative, s.Silent} {
			if v == 0 {
				continue
			}
			w := scale(v, mostParts)
			out.Parts = append(out.Parts, svgBar{Skill: s.Name, Kind: outcomeKinds[k].Name, Color: outcomeKinds[k].Color, Value: v, X: x, Y: y, W: w, H: barHeight})
			x += w
		}
		d.Outcomes.Rows = append(d.Outcomes.Rows, out)

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
	rows := max(1, len(j.Skills))
	d.Injected.Height = barGap + rows*(barHeight+barGap)
	d.Outcomes.Height = d.Injected.Height

	d.Daily.Height = dailyH + 24
	mostDay := 0
	for _, n := range j.PerDay {
		mostDay = max(mostDay, n)
	}
	if n := len(j.Days); n > 0 {
		step := max(1, (pageWidth-20)/n)
		every := max(1, n/8) // at most about eight dates under the bars
		for i, day := range j.Days {
			h := 0
			if mostDay > 0 && j.PerDay[i] > 0 {
				h = max(1, j.PerDay[i]*dailyH/mostDay)
			}
			x := 10 + i*step
			d.Daily.Cols = append(d.Daily.Cols, svgBar{Label: day, Value: j.PerDay[i], X: x, Y: dailyH - h, W: max(1, step-2), H: h})
			if i%every == 0 {
				d.Daily.Ticks = append(d.Daily.Ticks, svgBar{Label: day[5:], X: x + step/2, Y: dailyH + 16})
			}
		}
	}
	var b bytes.Buffer
	if err := statsPage.Execute(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
