package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/megagit/megagit/safetext"
	"github.com/olekukonko/tablewriter"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// flagLookup is what config.Load needs from a command's flags.
type flagLookup = *pflag.FlagSet

// terminal is a writer that knows whether it is a terminal; tests wrap a
// buffer in one to force the terminal output path (tables, progress bars).
type terminal interface{ IsTerminal() bool }

// isTTY reports whether w is a terminal, which picks tables over TSV.
func isTTY(w io.Writer) bool {
	if t, ok := w.(terminal); ok {
		return t.IsTerminal()
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// shown is text megagit did not write itself — a reason, a context, a
// skill's description, a path, an error quoting any of them — as it may
// reach a terminal: newlines and tabs become spaces, and every other
// control character (ESC, BEL, ...), bidirectional override or invalid
// byte is written as an escape (\x1b), never raw. Every printer of such
// text goes through it.
func shown(s string) string {
	return safetext.Escape(strings.NewReplacer("\r\n", " ", "\n", " ", "\t", " ").Replace(s))
}

// shownLines is shown for a message of several lines: each line is shown.
func shownLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = shown(l)
	}
	return strings.Join(lines, "\n")
}

// shownText is shown for a text of lines that keeps its newlines and
// tabs (an injection, a skill's body): everything else hidden is escaped.
func shownText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		cells := strings.Split(l, "\t")
		for j, c := range cells {
			cells[j] = safetext.Escape(strings.ReplaceAll(c, "\r", ""))
		}
		lines[i] = strings.Join(cells, "\t")
	}
	return strings.Join(lines, "\n")
}

// printTable writes rows as a table on a terminal, tab-separated otherwise;
// every cell is shown.
func printTable(w io.Writer, header []string, rows [][]string) error {
	if isTTY(w) {
		t := tablewriter.NewWriter(w)
		t.Header(anySlice(header)...)
		for _, r := range rows {
			if err := t.Append(anySlice(shownCells(r))...); err != nil {
				return err
			}
		}
		return t.Render()
	}
	fmt.Fprintln(w, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(w, strings.Join(shownCells(r), "\t"))
	}
	return nil
}

func shownCells(r []string) []string {
	out := make([]string, len(r))
	for i, c := range r {
		out[i] = shown(c)
	}
	return out
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func printJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(safetext.JSON(buf.Bytes()))
	return err
}
