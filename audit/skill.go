package audit

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/megagit/megagit/local"
)

// Caps on what one skill's audit reads: a file's first MaxFileBytes, at
// most MaxFiles files. A skill folder holds instructions and a few
// scripts; what lies past a cap is named by an `unread` finding.
const (
	MaxFileBytes = 4 << 20
	MaxFiles     = 2000
)

// Skill audits the skill folder dir: its SKILL.md and every text file
// under it (a binary file — a program or library, or a NUL byte among its
// first 8 KiB — is a `binary` finding, not read as text), files named
// relative to dir. Symlinks are not followed and
// what cannot be read is an `unread` finding: the audit never fails, it
// says what it did not see.
func Skill(dir string) []Finding {
	var out []Finding
	unread := func(rel, why string) {
		out = append(out, Finding{File: rel, Line: 0, Rule: RuleUnread, Severity: Low, Message: why})
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel := relSlash(dir, p)
		if err != nil {
			unread(rel, "not read: "+err.Error())
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			if d.Name() == ".git" && p != dir {
				return fs.SkipDir
			}
		case d.Type()&fs.ModeSymlink != 0:
			unread(rel, "a symlink: not followed")
		case !d.Type().IsRegular():
			unread(rel, "not a regular file: not read")
		default:
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		unread(".", "not read: "+err.Error())
	}
	sort.Strings(files)
	if len(files) > MaxFiles {
		unread(relSlash(dir, files[MaxFiles]), fmt.Sprintf("the folder holds %d files: the audit read the first %d", len(files), MaxFiles))
		files = files[:MaxFiles]
	}
	for _, p := range files {
		rel := relSlash(dir, p)
		data, clipped, err := readHead(p)
		if err != nil {
			unread(rel, "not read: "+err.Error())
			continue
		}
		out = append(out, fileFindings(rel, data, clipped)...)
	}
	sortFindings(out)
	return out
}

// Files audits a skill held in memory (a skill fetched by `skill install`
// before it is written): files maps slash-separated paths relative to the
// skill's folder to their contents, with the same caps as Skill.
func Files(files map[string][]byte) []Finding {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Finding
	if len(names) > MaxFiles {
		out = append(out, Finding{File: names[MaxFiles], Rule: RuleUnread, Severity: Low,
			Message: fmt.Sprintf("the folder holds %d files: the audit read the first %d", len(names), MaxFiles)})
		names = names[:MaxFiles]
	}
	for _, n := range names {
		data, clipped := files[n], false
		if len(data) > MaxFileBytes {
			data, clipped = data[:MaxFileBytes], true
		}
		out = append(out, fileFindings(n, data, clipped)...)
	}
	sortFindings(out)
	return out
}

// fileFindings audits one file's (first) bytes: a binary file (a program
// or a library, or any file with a NUL byte among its first 8 KiB: an
// image, an archive) gets a `binary` finding and is not read as text; an
// `unread` finding when only its beginning was read.
func fileFindings(rel string, data []byte, clipped bool) []Finding {
	if out, ok := binaryFindings(rel, data); ok {
		return out
	}
	var out []Finding
	if clipped {
		out = append(out, Finding{File: rel, Rule: RuleUnread, Severity: Low,
			Message: fmt.Sprintf("larger than %s: the audit read its beginning", local.Size(MaxFileBytes))})
	}
	return append(out, File(rel, data)...)
}

// readHead reads a regular file's first MaxFileBytes, and whether there
// was more.
func readHead(p string) ([]byte, bool, error) {
	f, _, err := local.OpenRegular(p)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, false, err
	}
	if len(data) > MaxFileBytes {
		return data[:MaxFileBytes], true, nil
	}
	return data, false, nil
}

// relSlash is p relative to dir, slash-separated ("." for dir).
func relSlash(dir, p string) string {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}
