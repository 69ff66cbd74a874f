package workspace

import (
	"encoding/json"
	"errors"

	"github.com/megagit/megagit/local"
)

// ProblemsFile remembers, beside the compiled index, the skills that did
// not parse when it was built, so a command that routes from the index
// still warns about them.
const ProblemsFile = "skill-problems.json"

type savedProblems struct {
	Key      string   `json:"key"` // the compiled index's skills key
	Problems []string `json:"problems"`
}

// saveProblems records the problems of the skills fingerprinted by key;
// a failure only costs the warnings of later calls.
func saveProblems(dir local.Dir, key string, problems []error) {
	sp := savedProblems{Key: key, Problems: []string{}}
	for _, p := range problems {
		sp.Problems = append(sp.Problems, p.Error())
	}
	if data, err := json.Marshal(sp); err == nil {
		_ = dir.WriteCache(ProblemsFile, data)
	}
}

// loadProblems returns the problems recorded for key, or none.
func loadProblems(dir local.Dir, key string) []error {
	p, _ := loadProblemsFor(dir, key)
	return p
}

// loadProblemsFor is loadProblems, with ok false when none were recorded
// for key.
func loadProblemsFor(dir local.Dir, key string) ([]error, bool) {
	data, err := dir.Read(ProblemsFile)
	if err != nil {
		return nil, false
	}
	var sp savedProblems
	if json.Unmarshal(data, &sp) != nil || sp.Key != key {
		return nil, false
	}
	out := make([]error, len(sp.Problems))
	for i, p := range sp.Problems {
		out[i] = errors.New(p)
	}
	return out, true
}
