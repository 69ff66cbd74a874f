package main

import (
	"math"
	"testing"
)

func TestScore(t *testing.T) {
	q := []float32{1, 0}
	full, name := []float32{0.5, 0}, []float32{0.25, 0}
	pass := [][]float32{{0.75, 0}, {0.125, 0}, {0.625, 0}}
	for _, c := range []struct {
		form string
		pass [][]float32
		want float64
	}{
		{"a", pass, 0.5},
		{"bmax", pass, 0.75},
		{"btop2", pass, (0.75 + 0.625) / 2},
		{"btop2", [][]float32{{0.125, 0}}, (0.5 + 0.125) / 2},
		{"btop2", nil, 0.5},
		{"bmax", nil, 0.5},
	} {
		if got := score(c.form, q, full, name, c.pass); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("score(%s, %d passages) = %v, want %v", c.form, len(c.pass), got, c.want)
		}
	}
}

func TestPoints(t *testing.T) {
	ps := points([]float64{0.3, 0.5}, []float64{0.2}, []float64{0}, []string{"", "weak"})
	if len(ps) != 4 || ps[0].w != 0.3 || ps[1].w != 0.5 || ps[2].tier != "weak" {
		t.Fatalf("points = %v", ps)
	}
	if s := ps[0].String(); s != "w=0.3 mfloor=0.2 dkfloor=0 tier=profile" {
		t.Fatalf("String = %q", s)
	}
	if got := floats("", 0.4); len(got) != 1 || got[0] != 0.4 {
		t.Fatalf("floats default = %v", got)
	}
	if got := splitList(" a, ,b "); len(got) != 2 || got[1] != "b" {
		t.Fatalf("splitList = %q", got)
	}
}
