package skillfile

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/megagit/megagit/lifecycle"
)

// evidenceKey is the one frontmatter key megagit owns.
const evidenceKey = "mega_meta"

// The keys of the evidence block, in the order they are written.
var evidenceKeys = []string{
	"helpful_count", "harmful_count", "helpful_contexts", "harmful_contexts", "status",
	"consecutive_harmful", "trajectory_weight", "implicit_outcomes", "silent_streak", "last_session_id", "last_updated",
	"disabled",
}

// evidenceParse is everything read from a mega_meta block: the evidence, all
// problems found (not just the first) and the keys megagit does not know.
type evidenceParse struct {
	ev      lifecycle.Evidence
	errs    []*FieldError
	unknown []*yaml.Node // key, value, key, value ... in file order
}

// Evidence is the skill's stored evidence, or cold start without a mega_meta
// block; keys left out take their cold-start values.
func (f *File) Evidence() (lifecycle.Evidence, error) {
	p := f.parseEvidence()
	if len(p.errs) > 0 {
		return lifecycle.ColdStart(), p.errs[0]
	}
	return p.ev, nil
}

func (f *File) parseEvidence() evidenceParse {
	p := evidenceParse{ev: lifecycle.ColdStart()}
	_, m := f.topKey(evidenceKey)
	if m == nil || fmIsNull(m) {
		return p
	}
	if m.Kind != yaml.MappingNode {
		p.errs = append(p.errs, &FieldError{File: f.path, Line: f.fileLine(m.Line), Field: evidenceKey,
			Msg: "must be a mapping of evidence keys, found " + fmKindName(m)})
		return p
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		field := evidenceKey + "." + k.Value
		if k.Kind != yaml.ScalarNode {
			p.errs = append(p.errs, &FieldError{File: f.path, Line: f.fileLine(k.Line), Field: evidenceKey, Msg: "keys must be plain words"})
			p.unknown = append(p.unknown, k, v)
			continue
		}
		if seen[k.Value] {
			p.errs = append(p.errs, &FieldError{File: f.path, Line: f.fileLine(k.Line), Field: field, Msg: "key appears more than once"})
			continue
		}
		seen[k.Value] = true
		if fmIsNull(v) {
			if !fmKnownEvidenceKey(k.Value) {
				p.unknown = append(p.unknown, k, v)
			}
			continue // a known key left empty keeps its cold-start value
		}
		var err error
		at := v // the node the error points at
		switch k.Value {
		case "helpful_count":
			p.ev.HelpfulCount, err = fmCount(v)
		case "harmful_count":
			p.ev.HarmfulCount, err = fmCount(v)
		case "consecutive_harmful":
			p.ev.ConsecutiveHarmful, err = fmCount(v)
		case "implicit_outcomes":
			p.ev.ImplicitOutcomes, err = fmCount(v)
		case "silent_streak":
			p.ev.SilentStreak, err = fmCount(v)
		case "helpful_contexts":
			p.ev.HelpfulContexts, at, err = fmStrings(v)
		case "harmful_contexts":
			p.ev.HarmfulContexts, at, err = fmStrings(v)
		case "status":
			if v.Kind != yaml.ScalarNode {
				err = fmt.Errorf("must be active, suspect or archived")
			} else {
				p.ev.Status, err = lifecycle.ParseStatus(v.Value)
			}
		case "trajectory_weight":
			p.ev.TrajectoryWeight, err = fmWeight(v)
		case "last_session_id":
			if v.Kind != yaml.ScalarNode {
				err = fmt.Errorf("must be a string, found %s", fmKindName(v))
			} else {
				p.ev.LastSessionID = v.Value
			}
		case "last_updated":
			p.ev.LastUpdated, err = fmTime(v)
		case "disabled":
			if v.Kind != yaml.ScalarNode {
				err = fmt.Errorf("must be a string (why the skill is off), found %s", fmKindName(v))
			} else {
				p.ev.Disabled = v.Value
			}
		default:
			p.unknown = append(p.unknown, k, v)
		}
		if err != nil {
			p.errs = append(p.errs, &FieldError{File: f.path, Line: f.fileLine(at.Line), Field: field, Msg: err.Error()})
		}
	}
	return p
}

func fmKnownEvidenceKey(k string) bool {
	for _, known := range evidenceKeys {
		if k == known {
			return true
		}
	}
	return false
}

func fmIsNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// fmCount reads a non-negative whole number; a quoted "3" is accepted too,
// since people editing by hand write it that way.
func fmCount(n *yaml.Node) (int, error) {
	if n.Kind == yaml.ScalarNode {
		var v int64
		var err error
		switch n.ShortTag() {
		case "!!int":
			err = n.Decode(&v)
		case "!!str":
			v, err = strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64)
		default:
			err = strconv.ErrSyntax
		}
		if err == nil {
			if v < 0 {
				return 0, fmt.Errorf("must be 0 or more, got %s", n.Value)
			}
			if v > math.MaxInt32 {
				return 0, fmt.Errorf("%s is too large", n.Value)
			}
			return int(v), nil
		}
	}
	return 0, fmt.Errorf("must be a whole number, got %s", fmShow(n))
}

func fmWeight(n *yaml.Node) (float64, error) {
	if n.Kind == yaml.ScalarNode {
		var w float64
		var err error
		switch n.ShortTag() {
		case "!!int", "!!float":
			err = n.Decode(&w)
		case "!!str":
			w, err = strconv.ParseFloat(strings.TrimSpace(n.Value), 64)
		default:
			err = strconv.ErrSyntax
		}
		if err == nil {
			if !(w >= lifecycle.MinWeight && w <= lifecycle.MaxWeight) {
				return 0, fmt.Errorf("must be between %g and %g, got %s", lifecycle.MinWeight, lifecycle.MaxWeight, n.Value)
			}
			return w, nil
		}
	}
	return 0, fmt.Errorf("must be a number between %g and %g, got %s", lifecycle.MinWeight, lifecycle.MaxWeight, fmShow(n))
}

// fmStrings reads a list of strings; on error it also returns the offending node.
func fmStrings(n *yaml.Node) ([]string, *yaml.Node, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, n, fmt.Errorf("must be a list of strings, found %s", fmKindName(n))
	}
	var out []string
	for _, item := range n.Content {
		if item.Kind != yaml.ScalarNode || fmIsNull(item) {
			what := fmKindName(item)
			if fmIsNull(item) {
				what = "an empty item"
			}
			return nil, item, fmt.Errorf("list items must be strings, found %s", what)
		}
		out = append(out, item.Value)
	}
	return out, n, nil
}

var fmTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02"}

func fmTime(n *yaml.Node) (time.Time, error) {
	if n.Kind == yaml.ScalarNode {
		for _, layout := range fmTimeLayouts {
			if t, err := time.Parse(layout, strings.TrimSpace(n.Value)); err == nil {
				return t.UTC(), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("must be an RFC 3339 time like 2026-05-21T07:54:33Z, got %s", fmShow(n))
}

func fmShow(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(n.Value)
	}
	return fmKindName(n)
}
