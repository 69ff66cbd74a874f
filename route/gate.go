package route

import (
	"embed"
	"fmt"
	"sync"

	"github.com/megagit/megagit/ranker"
)

// The abstention gates megagit ships, fitted by `megagit eval --fit` on the
// development benchmarks (lab/README.md has the commands): one for the
// lexical channel alone and one per built-in model, by model id.
//
//go:embed gates/*.json
var gateFiles embed.FS

// LexicalGate names the shipped gate of lexical-only routing.
const LexicalGate = "lexical"

var (
	gatesOnce sync.Once
	gates     map[string]*ranker.Gate
	gatesErr  error
)

// ShippedGate is the gate megagit ships for name (a model id, or
// LexicalGate); nil when there is none, and the model abstains by its
// profile's floors.
func ShippedGate(name string) *ranker.Gate {
	gatesOnce.Do(func() {
		gates = map[string]*ranker.Gate{}
		ents, err := gateFiles.ReadDir("gates")
		if err != nil {
			gatesErr = err
			return
		}
		for _, e := range ents {
			data, err := gateFiles.ReadFile("gates/" + e.Name())
			if err != nil {
				gatesErr = err
				return
			}
			g, err := ranker.ParseGate(data)
			if err != nil {
				gatesErr = fmt.Errorf("gates/%s: %w", e.Name(), err)
				return
			}
			gates[e.Name()[:len(e.Name())-len(".json")]] = g
		}
	})
	if gatesErr != nil {
		panic(gatesErr) // a shipped file is broken: the build is wrong
	}
	return gates[name]
}
