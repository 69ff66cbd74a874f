package eval

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The settings `eval --sweep` varies: the model's fusion weight and cosine
// floor (its profile's, which model.* overrides) and the fused floor.
const (
	KeyFusionW    = "model.fusion_w"
	KeyModelFloor = "model.abs_floor"
	KeyDynFloor   = "dynamic_k.abs_floor"
)

var sweepKeys = []string{KeyFusionW, KeyModelFloor, KeyDynFloor}

// Axis is one --sweep flag: a key and the values it takes, in order.
type Axis struct {
	Key    string
	Values []float64
}

// point is one grid setting: one value per axis, in flag order.
type point []float64

// ParseSweep parses the --sweep flags; nil when there are none.
func ParseSweep(specs []string) ([]Axis, error) {
	var grid []Axis
	for _, spec := range specs {
		ax, err := parseAxis(spec)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(grid, func(g Axis) bool { return g.Key == ax.Key }) {
			return nil, fmt.Errorf("--sweep %s: key given twice; list all its values in one flag", ax.Key)
		}
		grid = append(grid, ax)
	}
	return grid, nil
}

func parseAxis(spec string) (Axis, error) {
	key, list, ok := strings.Cut(spec, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" || strings.TrimSpace(list) == "" {
		return Axis{}, fmt.Errorf("--sweep %q: want KEY=V1,V2,... with KEY one of %s", spec, strings.Join(sweepKeys, ", "))
	}
	if !slices.Contains(sweepKeys, key) {
		return Axis{}, fmt.Errorf("--sweep %s: unknown key (want %s)", key, strings.Join(sweepKeys, ", "))
	}
	ax := Axis{Key: key}
	for _, raw := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		switch {
		case err != nil || math.IsNaN(v):
			return Axis{}, fmt.Errorf("--sweep %s: %q is not a number", key, raw)
		case key == KeyFusionW && (v < 0 || v > 1):
			return Axis{}, fmt.Errorf("--sweep %s: %s is outside [0, 1]", key, raw)
		case key != KeyFusionW && (v <= 0 || v > 1):
			// In config.yaml a floor of 0 means the profile's: it cannot be kept.
			return Axis{}, fmt.Errorf("--sweep %s: %s is outside (0, 1]", key, raw)
		case slices.Contains(ax.Values, v):
			return Axis{}, fmt.Errorf("--sweep %s: %s is listed twice", key, raw)
		}
		ax.Values = append(ax.Values, v)
	}
	return ax, nil
}

// sweepPoints is the grid's cartesian product, the first flag outermost.
func sweepPoints(grid []Axis) []point {
	points := []point{{}}
	for _, ax := range grid {
		next := make([]point, 0, len(points)*len(ax.Values))
		for _, p := range points {
			for _, v := range ax.Values {
				next = append(next, append(slices.Clone(p), v))
			}
		}
		points = next
	}
	return points
}

func fmtValue(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
