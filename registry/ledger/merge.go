package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// maxJunkLine bounds an unreadable line a merge keeps from the remote:
// one that cannot count as a verdict is kept for a person to look at, but
// not at any size.
const maxJunkLine = 64 << 10

// ledgerLine is one line of a ledger file with its exact bytes.
type ledgerLine struct {
	raw   []byte // without the newline
	entry Entry
	ok    bool   // a readable entry
	why   string // why it is not
}

// splitLedger reads the lines of the ledger file (a registry-relative
// path; "" for a ledger of any skill), as Parse reads them.
func splitLedger(file string, data []byte) []ledgerLine {
	var out []ledgerLine
	for _, raw := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		l := ledgerLine{raw: raw}
		if e, err := ParseLine(file, raw); err == nil {
			l.entry, l.ok = e, true
		} else {
			l.why = err.Error()
		}
		out = append(out, l)
	}
	return out
}

func ledgerIDs(lines []ledgerLine) map[string]bool {
	ids := map[string]bool{}
	for _, l := range lines {
		if l.ok {
			ids[l.entry.ID] = true
		}
	}
	return ids
}

// Merge merges two versions of a ledger that share base, by verdict
// id: a verdict either side added is kept exactly once, and a verdict one
// side removed (megagit revert) stays removed. Our lines keep their bytes
// and order; lines only the other side has are appended, ordered by (at,
// id) so every machine writes the same file. Unreadable lines are kept
// (ours as they are, theirs appended) and reported in problems.
//
// file is the ledger's registry-relative path: a line naming another skill
// than its own is a line that cannot count, as one dated far ahead.
func Merge(file string, base, ours, theirs []byte) ([]byte, []string) {
	b, o, t := splitLedger(file, base), splitLedger(file, ours), splitLedger(file, theirs)
	inB, inO, inT := ledgerIDs(b), ledgerIDs(o), ledgerIDs(t)
	var problems []string
	var out bytes.Buffer
	seen := map[string]bool{}
	oursRaw := map[string]bool{}
	for _, l := range o {
		oursRaw[string(l.raw)] = true
		if l.ok {
			if seen[l.entry.ID] || (inB[l.entry.ID] && !inT[l.entry.ID]) {
				continue // a duplicate, or reverted on their side
			}
			seen[l.entry.ID] = true
		}
		out.Write(l.raw)
		out.WriteByte('\n')
	}
	baseRaw := map[string]bool{}
	for _, l := range b {
		baseRaw[string(l.raw)] = true
	}
	var add []ledgerLine
	for _, l := range t {
		switch {
		case l.ok && (seen[l.entry.ID] || inO[l.entry.ID] || inB[l.entry.ID]):
			continue // already here, or reverted on our side
		case l.ok:
			seen[l.entry.ID] = true
			// A teammate's line is kept as a verdict recorded here would
			// be: its text cleaned and bounded.
			if clean, notes := Clean(l.entry); len(notes) > 0 {
				if raw, err := json.Marshal(clean); err == nil {
					l.raw, l.entry = raw, clean
					problems = append(problems, fmt.Sprintf("cleaned verdict %s of %s from the remote: %s", clean.ID, clean.Skill, strings.Join(notes, "; ")))
				}
			}
			add = append(add, l)
		case len(l.raw) > maxJunkLine && !oursRaw[string(l.raw)]:
			problems = append(problems, fmt.Sprintf("left out an unreadable ledger line of %d bytes from the remote (it stays in the remote's history): %s", len(l.raw), clipLine(l.raw)))
		case !oursRaw[string(l.raw)] && !baseRaw[string(l.raw)]:
			problems = append(problems, "kept a ledger line from the remote ("+l.why+"): "+clipLine(l.raw))
			add = append(add, l)
		}
	}
	sort.SliceStable(add, func(i, j int) bool {
		a, c := add[i], add[j]
		if a.ok != c.ok {
			return a.ok // readable lines first, junk last
		}
		if !a.ok {
			return false
		}
		ta, tc := a.entry.Time(), c.entry.Time()
		if !ta.Equal(tc) {
			return ta.Before(tc)
		}
		return a.entry.ID < c.entry.ID
	})
	for _, l := range add {
		out.Write(l.raw)
		out.WriteByte('\n')
	}
	return out.Bytes(), problems
}

func clipLine(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// IDs are the verdict ids of the readable lines of a ledger file's data.
func IDs(file string, data []byte) map[string]bool { return ledgerIDs(splitLedger(file, data)) }
