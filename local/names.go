package local

import (
	"strings"
)

// A path a teammate or a source names is compared with megagit's own
// folders (.git, .megagit, .megagit/local) as the file systems its users
// check it out on read it, not byte for byte: on macOS and Windows
// .megagit/LOCAL is .megagit/local, HFS+ ignores some invisible
// characters (".g\u200cit" is .git there), and NTFS drops trailing dots
// and spaces (".git. ", "local."), reads "name:stream" as name and knows
// a long name by its short one ("git~1"). These are git's own rules
// (core.protectHFS, core.protectNTFS).

// hfsIgnored are the characters HFS+ leaves out when it compares names.
func hfsIgnored(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// SameName reports whether part, one component of a path, names the same
// file as name (".git", ".megagit", "local", "config.yaml") on some file
// system a registry is checked out on: ignoring case, the characters
// HFS+ ignores, NTFS's trailing dots and spaces and its streams, and
// NTFS's short name of a long or dotted name (git~1, megagi~1).
func SameName(part, name string) bool {
	if part == name {
		return true
	}
	p := strings.Map(func(r rune) rune {
		if hfsIgnored(r) {
			return -1
		}
		return r
	}, part)
	if i := strings.IndexByte(p, ':'); i > 0 {
		p = p[:i] // NTFS: name:stream is a stream of name
	}
	p = strings.TrimRight(p, ". ")
	if p == "" {
		return false
	}
	if strings.EqualFold(p, name) {
		return true
	}
	short, ok := shortName(name)
	return ok && len(p) == len(short)+2 && strings.EqualFold(p[:len(short)+1], short+"~") && p[len(short)+1] >= '1' && p[len(short)+1] <= '9'
}

// shortName is the stem of NTFS's 8.3 name of a name that has one (a name
// starting with a dot, or longer than 8 characters): its first six
// letters, before "~1".
func shortName(name string) (string, bool) {
	stem := strings.ReplaceAll(name, ".", "")
	if !strings.HasPrefix(name, ".") && len(name) <= 8 || stem == "" {
		return "", false
	}
	if len(stem) > 6 {
		stem = stem[:6]
	}
	return stem, true
}

// IsDotGit reports whether part, one component of a path, is git's own
// folder .git on some file system (SameName): no commit may hold one.
func IsDotGit(part string) bool { return SameName(part, ".git") }

// HasDotGit reports whether any component of the slash-separated path p
// is .git (IsDotGit).
func HasDotGit(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if IsDotGit(part) {
			return true
		}
	}
	return false
}

// IsLocalPath reports whether rel, registry-relative and slash-separated,
// is the per-machine folder .megagit/local itself or lies under it, in
// any spelling some file system takes for it (SameName): .megagit/LOCAL,
// .MEGAGIT/local/config.yaml, .megagit/local.
func IsLocalPath(rel string) bool {
	meta, rest, _ := strings.Cut(rel, "/")
	if !SameName(meta, MetaDir) {
		return false
	}
	dir, _, _ := strings.Cut(rest, "/")
	return SameName(dir, "local")
}
