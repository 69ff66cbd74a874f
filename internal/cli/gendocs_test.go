package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// The command reference in docs/commands is generated from the binary's
// own command tree. It lives in a test, not in the package, so the
// megagit users run links no documentation generator.

var updateDocs = flag.Bool("update", false, "rewrite docs/commands from the command tree")

// commandDocsDir is docs/commands, seen from this package's folder.
var commandDocsDir = filepath.Join("..", "..", "docs", "commands")

// commandDocsRefresh is the command that rewrites docs/commands.
const commandDocsRefresh = "go test ./internal/cli -run TestCommandDocsCurrent -update"

// generatedNote heads every generated page, so nobody edits one by hand.
const generatedNote = "<!-- Generated from megagit's command tree by `" + commandDocsRefresh + "`. Do not edit. -->\n\n"

// TestCommandDocsCurrent fails when docs/commands differs from what the
// command tree generates; with -update it rewrites the folder.
func TestCommandDocsCurrent(t *testing.T) {
	fresh := t.TempDir()
	if err := genCommandDocs(fresh); err != nil {
		t.Fatal(err)
	}
	want := readDocPages(t, fresh)
	if *updateDocs {
		writeDocPages(t, commandDocsDir, want)
		return
	}
	have := readDocPages(t, commandDocsDir)
	var missing, stale, extra []string
	for name, text := range want {
		old, ok := have[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case !bytes.Equal(old, text):
			stale = append(stale, name)
		}
	}
	for name := range have {
		if _, ok := want[name]; !ok {
			extra = append(extra, name)
		}
	}
	if len(missing)+len(stale)+len(extra) == 0 {
		return
	}
	for _, l := range []struct {
		what  string
		names []string
	}{{"missing", missing}, {"out of date", stale}, {"no longer generated", extra}} {
		if len(l.names) > 0 {
			slices.Sort(l.names)
			t.Errorf("docs/commands: %s: %s", l.what, strings.Join(l.names, ", "))
		}
	}
	t.Errorf("refresh the command reference with: %s", commandDocsRefresh)
}

// TestCommandDocsDeterministic keeps the pages free of anything that
// differs between machines, users or days: two runs agree, and no page
// holds the home folder, the temporary folder or the working directory.
func TestCommandDocsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := genCommandDocs(a); err != nil {
		t.Fatal(err)
	}
	if err := genCommandDocs(b); err != nil {
		t.Fatal(err)
	}
	pa, pb := readDocPages(t, a), readDocPages(t, b)
	if len(pa) != len(pb) {
		t.Fatalf("two runs wrote %d and %d pages", len(pa), len(pb))
	}
	var local []string
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 {
		local = append(local, home+"/")
	}
	if wd, err := os.Getwd(); err == nil {
		local = append(local, wd)
	}
	local = append(local, os.TempDir(), a)
	for name, text := range pa {
		if !bytes.Equal(text, pb[name]) {
			t.Errorf("%s differs between two runs", name)
		}
		for _, s := range local {
			if bytes.Contains(text, []byte(s)) {
				t.Errorf("%s holds %q, which depends on this machine", name, s)
			}
		}
	}
	for _, want := range []string{"README.md", "megagit.md", "megagit_hook_prompt.md", "megagit_hook_stop.md", "megagit_exit-codes.md", "megagit_completion.md"} {
		if _, ok := pa[want]; !ok {
			t.Errorf("no page %s", want)
		}
	}
}

// genCommandDocs writes the command reference into dir: one Markdown page
// per command (cobra/doc's layout: megagit_skill_add.md and so on), one
// per help topic (megagit_exit-codes.md) and README.md, an index of them
// all. The tree is the binary's own, so the pages say what --help says.
func genCommandDocs(dir string) error {
	a := &app{in: strings.NewReader(""), out: io.Discard, errOut: io.Discard, now: time.Now}
	root := newRootCmd(a)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	prepareForDocs(root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	prepend := func(string) string { return generatedNote }
	link := func(s string) string { return s }
	if err := doc.GenMarkdownTreeCustom(root, dir, prepend, link); err != nil {
		return err
	}
	var topics []*cobra.Command
	for _, c := range root.Commands() {
		if c.IsAdditionalHelpTopicCommand() {
			topics = append(topics, c)
			var b bytes.Buffer
			b.WriteString(generatedNote)
			if err := doc.GenMarkdownCustom(c, &b, link); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, docPageName(c)), b.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), docIndex(root, topics), 0o644)
}

// prepareForDocs readies the tree for Markdown: no generation date; each
// Long shown as the terminal shows it (it is laid out for a terminal, not
// written in Markdown); Shorts with the characters Markdown would eat
// escaped; groups without a usage line of their own (strictGroups gives
// them a run function only to fail on a missing subcommand).
func prepareForDocs(c *cobra.Command) {
	c.DisableAutoGenTag = true
	c.Short = escapeMarkdown(c.Short)
	if c.Long != "" {
		c.Long = "```\n" + strings.TrimRight(c.Long, "\n") + "\n```"
	}
	if c.Annotations[groupAnnotation] == "true" {
		c.RunE = nil
	}
	for _, sub := range c.Commands() {
		prepareForDocs(sub)
	}
}

// escapeMarkdown escapes what Markdown would read as markup (an HTML tag,
// emphasis) outside `code spans`, which are kept as they are.
func escapeMarkdown(s string) string {
	var b strings.Builder
	code := false
	for _, r := range s {
		switch {
		case r == '`':
			code = !code
		case !code && strings.ContainsRune(`\<>*_`, r):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// docPageName is cobra/doc's file name for a command's page.
func docPageName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

// docIndex is the reference's README.md: every documented command, depth
// first in `megagit help`'s order (the top-level commands under their
// groups' headings), then the help topics.
func docIndex(root *cobra.Command, topics []*cobra.Command) []byte {
	var b bytes.Buffer
	b.WriteString(generatedNote)
	b.WriteString("# Command reference\n\n")
	b.WriteString("One page per command, generated from megagit's own `--help`; ")
	b.WriteString("`megagit help COMMAND` prints the same text in a terminal. ")
	b.WriteString("The guides are in [docs/](../README.md).\n\n")
	var walk func(c *cobra.Command, depth int)
	walk = func(c *cobra.Command, depth int) {
		fmt.Fprintf(&b, "%s- [%s](%s): %s\n", strings.Repeat("  ", depth), c.CommandPath(), docPageName(c), c.Short)
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
				walk(sub, depth+1)
			}
		}
	}
	fmt.Fprintf(&b, "- [%s](%s): %s\n", root.CommandPath(), docPageName(root), root.Short)
	groups := append(root.Groups(), &cobra.Group{Title: "Other commands:"})
	for _, g := range groups {
		var cmds []*cobra.Command
		for _, c := range root.Commands() {
			if c.GroupID == g.ID && c.IsAvailableCommand() && !c.IsAdditionalHelpTopicCommand() {
				cmds = append(cmds, c)
			}
		}
		if len(cmds) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", strings.TrimSuffix(g.Title, ":"))
		for _, c := range cmds {
			walk(c, 0)
		}
	}
	if len(topics) > 0 {
		b.WriteString("\nHelp topics (`megagit help TOPIC`):\n\n")
		for _, t := range topics {
			fmt.Fprintf(&b, "- [%s](%s): %s\n", t.Name(), docPageName(t), t.Short)
		}
	}
	return b.Bytes()
}

// readDocPages reads every .md file of dir by name; a missing dir is empty.
func readDocPages(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	pages := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return pages
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pages[e.Name()] = data
	}
	return pages
}

// writeDocPages makes dir hold exactly pages: it writes each and removes
// the .md files no longer generated.
func writeDocPages(t *testing.T, dir string, pages map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name := range readDocPages(t, dir) {
		if _, ok := pages[name]; !ok {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			t.Logf("removed docs/commands/%s", name)
		}
	}
	for name, text := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
