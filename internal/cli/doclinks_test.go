package cli

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The user documentation is README.md and docs/ (the guides and the
// generated command reference). Its relative links must lead somewhere:
// a file or folder of the repository and, for a #fragment into a Markdown
// file, one of its headings.

// repoRoot is the repository, seen from this package's folder.
var repoRoot = filepath.Join("..", "..")

var (
	// mdLink is an inline link or image, [text](target "title"); the target
	// is group 1.
	mdLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// mdRefDef is a reference definition, [label]: target.
	mdRefDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	// mdCodeSpan is inline code, where a link is only text.
	mdCodeSpan = regexp.MustCompile("`+[^`]*`+")
	// mdHeading is an ATX heading; group 1 is its text.
	mdHeading = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	// mdInlineLink is a link within a heading, which counts by its text.
	mdInlineLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	// mdScheme starts an absolute URL (https:, mailto:).
	mdScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

func TestMarkdownLinks(t *testing.T) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(repoRoot, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("no Markdown files under docs/")
	}
	anchors := map[string]map[string]bool{} // by file, read once
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		a := map[string]bool{}
		if data, err := os.ReadFile(filepath.Join(repoRoot, file)); err == nil {
			a = markdownAnchors(string(data))
		}
		anchors[file] = a
		return a
	}
	for _, file := range files {
		data, err := os.ReadFile(filepath.Join(repoRoot, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range markdownLinks(string(data)) {
			target, frag, _ := strings.Cut(l.target, "#")
			if mdScheme.MatchString(target) || strings.HasPrefix(target, "//") {
				continue
			}
			if p, err := url.PathUnescape(target); err == nil {
				target = p
			}
			dest := file
			if target != "" {
				if strings.HasPrefix(target, "/") {
					t.Errorf("%s:%d: link %q is absolute; link relative to the file", file, l.line, l.target)
					continue
				}
				dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(file), target)))
				if dest == ".." || strings.HasPrefix(dest, "../") {
					t.Errorf("%s:%d: link %q leads out of the repository", file, l.line, l.target)
					continue
				}
				if _, err := os.Stat(filepath.Join(repoRoot, dest)); err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", file, l.line, l.target, dest)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
				t.Errorf("%s:%d: link %q: %s has no heading #%s", file, l.line, l.target, dest, frag)
			}
		}
	}
}

// mdLinkAt is one link target and the line it is on.
type mdLinkAt struct {
	target string
	line   int
}

// markdownLinks returns the link targets of a Markdown text, outside fenced
// code blocks and code spans.
func markdownLinks(text string) []mdLinkAt {
	var links []mdLinkAt
	for _, l := range proseLines(text) {
		line := mdCodeSpan.ReplaceAllString(l.text, "")
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			links = append(links, mdLinkAt{m[1], l.n})
		}
		if m := mdRefDef.FindStringSubmatch(line); m != nil {
			links = append(links, mdLinkAt{m[1], l.n})
		}
	}
	return links
}

// proseLine is one line of a Markdown text outside fenced code, numbered
// from 1.
type proseLine struct {
	n    int
	text string
}

// proseLines are a Markdown text's lines outside fenced code blocks.
func proseLines(text string) []proseLine {
	var out []proseLine
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		if f := fenceOf(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence):
				fence = ""
			}
			continue
		}
		if fence == "" {
			out = append(out, proseLine{i + 1, line})
		}
	}
	return out
}

// fenceOf is the fence a line opens or closes (``` or ~~~, three or
// more), or "".
func fenceOf(line string) string {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return ""
	}
	for _, c := range []string{"`", "~"} {
		n := len(s) - len(strings.TrimLeft(s, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// markdownAnchors returns the anchors GitHub gives a Markdown text's
// headings: lowercased, punctuation dropped, spaces as hyphens, and -1,
// -2 ... on repeats.
func markdownAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(text) {
		m := mdHeading.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		slug := headingSlug(m[1])
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// headingSlug is GitHub's anchor for a heading's text.
func headingSlug(heading string) string {
	heading = mdInlineLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestLinkAnchorSlugs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Set up (two commands)", "set-up-two-commands"},
		{"Knowing when nothing fits: the abstention gate", "knowing-when-nothing-fits-the-abstention-gate"},
		{"The SKILL.md evidence block", "the-skillmd-evidence-block"},
		{"`megagit why`, term by term", "megagit-why-term-by-term"},
		{"Codex CLI and Gemini CLI", "codex-cli-and-gemini-cli"},
		{"A [linked](x.md) heading", "a-linked-heading"},
	} {
		if got := headingSlug(c.in); got != c.want {
			t.Errorf("headingSlug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	a := markdownAnchors("# Usage\n\n```\n# not a heading\n```\n## Usage\n")
	if !a["usage"] || !a["usage-1"] || a["not-a-heading"] {
		t.Errorf("markdownAnchors = %v, want usage and usage-1 only", a)
	}
}
