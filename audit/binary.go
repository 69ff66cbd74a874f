package audit

import (
	"bytes"
)

// A skill is text for the agent and the scripts it runs. A program or a
// library in it is code no reader of the skill can read, which an agent
// or a setting could load or run: the rule `binary` finds one by its
// first bytes, whatever its name. Any other file holding NUL bytes (an
// image, a PDF) is not read as text, and says so.

// executable names the kind of program or library data starts as, or "".
func executable(data []byte) string {
	hasNUL := bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0
	switch {
	case bytes.HasPrefix(data, []byte("\x7fELF")):
		return "an ELF program or shared library"
	case bytes.HasPrefix(data, []byte{0xfe, 0xed, 0xfa, 0xce}), bytes.HasPrefix(data, []byte{0xfe, 0xed, 0xfa, 0xcf}),
		bytes.HasPrefix(data, []byte{0xce, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(data, []byte{0xcf, 0xfa, 0xed, 0xfe}):
		return "a Mach-O program or library"
	case bytes.HasPrefix(data, []byte{0xca, 0xfe, 0xba, 0xbe}) && hasNUL:
		return "a Mach-O universal program or library (or a Java class)"
	case bytes.HasPrefix(data, []byte("MZ")) && hasNUL:
		return "a Windows program or library"
	case bytes.HasPrefix(data, []byte("\x00asm")):
		return "a WebAssembly module"
	case bytes.HasPrefix(data, []byte("!<arch>\n")):
		return "a static library (an ar archive)"
	}
	return ""
}

// binaryFindings are the findings of a file that is not text: high for a
// program or a library, low for any other file holding NUL bytes; ok is
// false for a text file.
func binaryFindings(rel string, data []byte) (out []Finding, ok bool) {
	if kind := executable(data); kind != "" {
		return []Finding{{File: rel, Rule: RuleBinary, Severity: High,
			Message: kind + ": a skill holds text and scripts, not programs to load or run"}}, true
	}
	if bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0 {
		return []Finding{{File: rel, Rule: RuleBinary, Severity: Low,
			Message: "a binary file (it holds NUL bytes): not read as text"}}, true
	}
	return nil, false
}
