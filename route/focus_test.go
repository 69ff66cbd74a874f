package route

import (
	"strings"
	"testing"

	"github.com/megagit/megagit/ranker"
)

// recordingDense remembers the texts the model was asked to embed.
type recordingDense struct {
	n     int
	texts []string
}

func (d *recordingDense) Scores(text string) ([]float64, error) {
	d.texts = append(d.texts, text)
	return make([]float64, d.n), nil
}
func (d *recordingDense) DenseProfile() DenseProfile {
	return DenseProfile{FusionW: 0.4, AbsFloor: 0.2}
}

// The model embeds a long prompt's request, a short prompt as it is, and
// the project's name after either.
func TestDenseEmbedsTheRequest(t *testing.T) {
	docs := []ranker.Doc{
		{ID: "csv-export", Description: "Export a database table to CSV.", Weight: 1},
		{ID: "incident-postmortem", Description: "Write a postmortem after an outage.", Weight: 1},
	}
	sem := &recordingDense{n: len(docs)}
	r, _ := New(docs, ranker.DefaultConfig(), sem, DynamicKOverride{}, nil)
	story := strings.Repeat("Yesterday we had an outage and everyone is tired after the long review. ", 5)
	ask := "Export the orders table to CSV."
	tests := []struct{ prompt, project, want string }{
		{"export the orders table to CSV", "", "export the orders table to CSV"},
		{"export the orders table to CSV", "shop", "export the orders table to CSV\nshop"},
		{story + ask, "", ask},
		{story + ask, "shop", ask + "\nshop"},
	}
	for _, tt := range tests {
		sem.texts = nil
		r.rank(tt.prompt, tt.project, Settings{})
		if len(sem.texts) != 1 || sem.texts[0] != tt.want {
			t.Errorf("rank(%.30q, %q) embedded %q, want %q", tt.prompt, tt.project, sem.texts, tt.want)
		}
	}
}
