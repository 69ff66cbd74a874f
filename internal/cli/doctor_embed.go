package cli

import (
	"fmt"
	"strings"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/workspace"
)

// cacheCoverageCheck says whether the committed embedding cache of the
// active model holds a row for every text routing embeds: each skill's
// description and name, and each helpful or harmful context and verdict
// reason it keeps. A cache that lacks rows still routes (the missing
// vectors are computed on each machine); `megagit embed` adds them.
func cacheCoverageCheck(e *workspace.Workspace) []doctor.Check {
	const name = "cache coverage"
	emb, err := activeEmbedder(e, func(string) {})
	if err != nil || emb == nil {
		return nil // lexical routing, or a model that does not load: other checks say so
	}
	cov, ok := e.CacheCoverage(emb)
	if !ok {
		return nil
	}
	lacking := append(append([]string{}, cov.Stale...), cov.Missing...)
	if len(lacking) == 0 {
		return []doctor.Check{{Name: name, Status: doctor.OK, Detail: fmt.Sprintf("every text of %d skill(s) has its vector", cov.Skills)}}
	}
	return []doctor.Check{{Name: name, Status: doctor.Warn,
		Detail: fmt.Sprintf("the committed cache of %s lacks vectors of %d skill(s): %s; routing computes them on each machine meanwhile",
			emb.ID(), len(lacking), strings.Join(lacking, ", ")),
		Hint: "run `megagit embed`, which adds the missing vectors and commits them (doctor --fix does not embed)"}}
}
