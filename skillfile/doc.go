// Package skillfile reads and writes SKILL.md files: the YAML frontmatter,
// the mega_meta evidence block megagit owns inside it, the triggers and
// headings of the body, skill names, and the lint of one file.
//
// It is a pure package: bytes in, values out. It opens no file, reads no
// clock and no environment, so the registry, the linter and the fuzzer all
// share one codec. Rewriting the evidence block keeps every other byte of
// the file (see WithEvidence).
package skillfile

// A bad skill name, SKILL.md or frontmatter field is an
// errkind.ErrInvalid, which the command layer maps to the "invalid input"
// exit code.
