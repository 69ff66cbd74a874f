package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

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

// printTable writes rows as a table on a terminal, tab-separated otherwise.
func printTable(w io.Writer, header []string, rows [][]string) error {
	if isTTY(w) {
		t := tablewriter.NewWriter(w)
		t.Header(anySlice(header)...)
		for _, r := range rows {
			if err := t.Append(anySlice(r)...); err != nil {
				return err
			}
		}
		return t.Render()
	}
	fmt.Fprintln(w, strings.Join(header, "\t"))
	for _, r := range rows {
		clean := make([]string, len(r))
		for i, c := range r {
			clean[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(c)
		}
		fmt.Fprintln(w, strings.Join(clean, "\t"))
	}
	return nil
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
