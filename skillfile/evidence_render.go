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

// normalizeEvidence checks e and brings it to exactly what reading the
// rendered block gives back: weight rounded to 4 decimals, time in UTC
// seconds, strings made valid UTF-8.
func normalizeEvidence(path string, e lifecycle.Evidence) (lifecycle.Evidence, error) {
	bad := func(field, format string, args ...any) error {
		return &FieldError{File: path, Field: evidenceKey + "." + field, Msg: fmt.Sprintf(format, args...)}
	}
	for _, c := range []struct {
		field string
		n     int
	}{{"helpful_count", e.HelpfulCount}, {"harmful_count", e.HarmfulCount},
		{"consecutive_harmful", e.ConsecutiveHarmful}, {"implicit_outcomes", e.ImplicitOutcomes},
		{"silent_streak", e.SilentStreak}} {
		if c.n < 0 || c.n > math.MaxInt32 {
			return e, bad(c.field, "must be between 0 and %d, got %d", math.MaxInt32, c.n)
		}
	}
	st, err := lifecycle.ParseStatus(string(e.Status))
	if err != nil {
		return e, bad("status", "%s", err)
	}
	e.Status = st
	w := math.Round(e.TrajectoryWeight*1e4) / 1e4
	if !(w >= lifecycle.MinWeight && w <= lifecycle.MaxWeight) {
		return e, bad("trajectory_weight", "must be between %g and %g, got %g", lifecycle.MinWeight, lifecycle.MaxWeight, e.TrajectoryWeight)
	}
	e.TrajectoryWeight = w
	e.HelpfulContexts = fmValidStrings(e.HelpfulContexts)
	e.HarmfulContexts = fmValidStrings(e.HarmfulContexts)
	e.LastSessionID = strings.ToValidUTF8(e.LastSessionID, "\uFFFD")
	e.Disabled = strings.ToValidUTF8(e.Disabled, "\uFFFD")
	if !e.LastUpdated.IsZero() {
		e.LastUpdated = e.LastUpdated.UTC().Truncate(time.Second)
		if y := e.LastUpdated.Year(); y < 1 || y > 9999 {
			return e, bad("last_updated", "year %d is outside 1-9999", y)
		}
	}
	if e.LastUpdated.IsZero() {
		e.LastUpdated = time.Time{}
	}
	return e, nil
}

func fmValidStrings(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = strings.ToValidUTF8(s, "\uFFFD")
	}
	return out
}

// evidenceEqual compares what matters after a round trip.
func evidenceEqual(a, b lifecycle.Evidence) bool {
	eq := func(x, y []string) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return a.HelpfulCount == b.HelpfulCount && a.HarmfulCount == b.HarmfulCount &&
		eq(a.HelpfulContexts, b.HelpfulContexts) && eq(a.HarmfulContexts, b.HarmfulContexts) &&
		a.Status == b.Status && a.ConsecutiveHarmful == b.ConsecutiveHarmful &&
		a.TrajectoryWeight == b.TrajectoryWeight && a.ImplicitOutcomes == b.ImplicitOutcomes && a.SilentStreak == b.SilentStreak &&
		a.LastSessionID == b.LastSessionID && a.LastUpdated.Equal(b.LastUpdated) && a.Disabled == b.Disabled
}

// renderEvidence writes the block spliced into the frontmatter; unknown
// keys of the old block follow the known ones.
func renderEvidence(e lifecycle.Evidence, indent, eol string, unknown []*yaml.Node) (string, error) {
	in := indent + "  "
	var b strings.Builder
	line := func(key, val string) { b.WriteString(in + key + ": " + val + eol) }
	b.WriteString(indent + evidenceKey + ":" + eol)
	line("helpful_count", strconv.Itoa(e.HelpfulCount))
	line("harmful_count", strconv.Itoa(e.HarmfulCount))
	line("helpful_contexts", fmFlowStrings(e.HelpfulContexts))
	line("harmful_contexts", fmFlowStrings(e.HarmfulContexts))
	line("status", string(e.Status))
	line("consecutive_harmful", strconv.Itoa(e.ConsecutiveHarmful))
	line("trajectory_weight", strconv.FormatFloat(e.TrajectoryWeight, 'f', -1, 64))
	if e.ImplicitOutcomes > 0 {
		line("implicit_outcomes", strconv.Itoa(e.ImplicitOutcomes))
	}
	if e.SilentStreak > 0 {
		line("silent_streak", strconv.Itoa(e.SilentStreak))
	}
	if e.LastSessionID != "" {
		line("last_session_id", fmQuote(e.LastSessionID))
	}
	if !e.LastUpdated.IsZero() {
		line("last_updated", fmQuote(e.LastUpdated.UTC().Format(time.RFC3339)))
	}
	if e.Disabled != "" {
		line("disabled", fmQuote(e.Disabled))
	}
	if len(unknown) > 0 {
		var sb strings.Builder
		enc := yaml.NewEncoder(&sb)
		enc.SetIndent(2)
		if err := enc.Encode(&yaml.Node{Kind: yaml.MappingNode, Content: fmCarryCopy(unknown)}); err != nil {
			return "", err
		}
		if err := enc.Close(); err != nil {
			return "", err
		}
		for _, l := range strings.Split(strings.TrimSuffix(sb.String(), "\n"), "\n") {
			if l != "" {
				l = in + l // blank lines stay empty: inside a block scalar they are content
			}
			b.WriteString(l + eol)
		}
	}
	return b.String(), nil
}

// fmCarryCopy copies the unknown nodes for re-rendering. Multi-line
// scalars become double-quoted, as a block scalar ending the spliced block
// could swallow the blank or comment lines that follow it in the file; foot
// comments are dropped, as those lines may lie after the block and stay.
func fmCarryCopy(nodes []*yaml.Node) []*yaml.Node {
	out := make([]*yaml.Node, len(nodes))
	for i, n := range nodes {
		c := *n
		if c.Kind == yaml.ScalarNode && strings.Contains(c.Value, "\n") {
			c.Style = yaml.DoubleQuotedStyle
		}
		c.FootComment = ""
		c.Content = fmCarryCopy(n.Content)
		out[i] = &c
	}
	return out
}

func fmFlowStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmQuote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// fmQuote writes s as a one-line YAML double-quoted scalar. yaml.v3's own
// emitter folds long double-quoted scalars at 80 columns, which would break
// the one-line layout of the spliced block, so the escaping is done here
// (same escape set; tests read every result back with yaml.v3).
func fmQuote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\0`)
		case 0x85:
			b.WriteString(`\N`)
		case 0x2028:
			b.WriteString(`\L`)
		case 0x2029:
			b.WriteString(`\P`)
		default:
			switch {
			case r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF:
				fmt.Fprintf(&b, `\u%04X`, r)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
