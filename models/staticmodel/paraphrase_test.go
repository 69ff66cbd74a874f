package staticmodel

import (
	"math"
	"os"
	"testing"
)

// TestParaphraseCosines logs the cosines lab/NOTEBOOK.md ("Toward
// megagit-static-v2") compares across models: two paraphrases of a skill
// that share no word with it, and four null prompts. The built-in model, or
// MEGAGIT_COSINE_MODEL=DIR for a model folder:
//
//	MEGAGIT_COSINE_MODEL=/tmp/cand go test ./models/staticmodel -run TestParaphraseCosines -v
func TestParaphraseCosines(t *testing.T) {
	var (
		m   *Model
		err error
	)
	if dir := os.Getenv("MEGAGIT_COSINE_MODEL"); dir != "" {
		m, err = Load(os.DirFS(dir), ".")
	} else {
		m, err = Load(BuiltinFS(), "models/"+BuiltinID)
	}
	if err != nil {
		t.Skipf("no model: %v", err)
	}
	skill := "image-optimizer: resize, crop and compress photos for the web"
	sv := m.Embed(skill)
	for _, prompt := range []string{
		"make my pictures smaller so the page loads faster",
		"shrink the images on my site",
		"what's the weather like today",
		"thanks, that's all for now",
		"write a poem about the sea",
		"tell me a joke about photographers",
	} {
		pv := m.Embed(prompt)
		var dot float64
		for i := range pv {
			dot += float64(pv[i]) * float64(sv[i])
		}
		if math.IsNaN(dot) || dot > 1.0001 || dot < -1.0001 {
			t.Errorf("cos(%q) = %v", prompt, dot)
		}
		t.Logf("%6.3f  %s", dot, prompt)
	}
}
