package eval

import (
	"reflect"
	"strings"
	"testing"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/route/dense"
)

func TestSweepParse(t *testing.T) {
	tests := []struct {
		name    string
		specs   []string
		want    []Axis
		wantErr string
	}{
		{name: "none", specs: nil, want: nil},
		{name: "one key", specs: []string{"model.fusion_w=0.2, 0.3,0"},
			want: []Axis{{KeyFusionW, []float64{0.2, 0.3, 0}}}},
		{name: "grid in flag order", specs: []string{"model.abs_floor=0.25", "model.fusion_w=1", "dynamic_k.abs_floor=0.1,0.2"},
			want: []Axis{{KeyModelFloor, []float64{0.25}}, {KeyFusionW, []float64{1}}, {KeyDynFloor, []float64{0.1, 0.2}}}},
		{name: "no equals", specs: []string{"model.fusion_w"}, wantErr: `--sweep "model.fusion_w": want KEY=V1,V2,...`},
		{name: "no values", specs: []string{"model.fusion_w="}, wantErr: "want KEY=V1,V2,..."},
		{name: "no key", specs: []string{"=0.3"}, wantErr: "want KEY=V1,V2,..."},
		{name: "unknown key", specs: []string{"route.top_k=3"}, wantErr: "--sweep route.top_k: unknown key (want model.fusion_w, model.abs_floor, dynamic_k.abs_floor)"},
		{name: "not a number", specs: []string{"model.fusion_w=0.3,abc"}, wantErr: `--sweep model.fusion_w: "abc" is not a number`},
		{name: "empty value", specs: []string{"model.fusion_w=0.3,"}, wantErr: `"" is not a number`},
		{name: "nan", specs: []string{"model.fusion_w=NaN"}, wantErr: "is not a number"},
		{name: "weight above 1", specs: []string{"model.fusion_w=1.5"}, wantErr: "--sweep model.fusion_w: 1.5 is outside [0, 1]"},
		{name: "negative weight", specs: []string{"model.fusion_w=-0.1"}, wantErr: "outside [0, 1]"},
		{name: "zero floor", specs: []string{"model.abs_floor=0"}, wantErr: "--sweep model.abs_floor: 0 is outside (0, 1]"},
		{name: "zero fused floor", specs: []string{"dynamic_k.abs_floor=0"}, wantErr: "outside (0, 1]"},
		{name: "value twice", specs: []string{"model.fusion_w=0.3,0.30"}, wantErr: "0.30 is listed twice"},
		{name: "key twice", specs: []string{"model.fusion_w=0.3", "model.fusion_w=0.4"}, wantErr: "--sweep model.fusion_w: key given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSweep(tt.specs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestSweepPoints(t *testing.T) {
	grid := []Axis{{KeyFusionW, []float64{0.2, 0.4}}, {KeyModelFloor, []float64{0.1, 0.2, 0.3}}}
	want := []point{{0.2, 0.1}, {0.2, 0.2}, {0.2, 0.3}, {0.4, 0.1}, {0.4, 0.2}, {0.4, 0.3}}
	if got := sweepPoints(grid); !reflect.DeepEqual(got, want) {
		t.Errorf("points = %v, want %v", got, want)
	}
}

func TestSweepBest(t *testing.T) {
	row := func(cov, mrr float64) SweepRow { return SweepRow{System: System{Coverage: cov, MRR: mrr}} }
	tests := []struct {
		name string
		rows []SweepRow
		want int
	}{
		{"highest coverage", []SweepRow{row(0.5, 0.9), row(0.6, 0.1), row(0.55, 1)}, 1},
		{"ties by MRR", []SweepRow{row(0.6, 0.5), row(0.6, 0.7), row(0.6, 0.6)}, 1},
		{"full ties: the first", []SweepRow{row(0.6, 0.7), row(0.6, 0.7)}, 0},
	}
	for _, tt := range tests {
		if got := bestRow(tt.rows); got != tt.want {
			t.Errorf("%s: best = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestSweepKeep(t *testing.T) {
	sem := func(tier string) *dense.Channel { return &dense.Channel{Prof: models.Profile{Tier: tier}} }
	w := Axis{KeyFusionW, nil}
	floor := Axis{KeyModelFloor, nil}
	dyn := Axis{KeyDynFloor, nil}
	tests := []struct {
		name string
		sem  *dense.Channel
		tier string // config's dynamic_k.tier
		grid []Axis
		p    point
		want []string
	}{
		{"weight and floor", sem("medium"), "", []Axis{w, floor}, point{0.3, 0.25}, []string{"model: {fusion_w: 0.3, abs_floor: 0.25}"}},
		{"both sections", sem("medium"), "", []Axis{dyn, w}, point{0.15, 0.5}, []string{"model: {fusion_w: 0.5}", "dynamic_k: {abs_floor: 0.15}"}},
		{"lexical only", nil, "", []Axis{dyn}, point{0.12}, []string{"dynamic_k: {abs_floor: 0.12}"}},
		{"weight 0 is model none", sem("medium"), "", []Axis{w, floor}, point{0, 0.3}, []string{"model: {id: none}"}},
		{"weight 0 keeps the model's tier", sem("strong"), "", []Axis{w}, point{0}, []string{"model: {id: none}", "dynamic_k: {tier: strong}"}},
		{"unless the config sets one", sem("strong"), "weak", []Axis{w}, point{0}, []string{"model: {id: none}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{DynamicK: config.DynamicK{Tier: tt.tier}}
			if got := keep(cfg, tt.sem, tt.grid, tt.p); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("keep = %q, want %q", got, tt.want)
			}
		})
	}
}
