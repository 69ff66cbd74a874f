package audit

import "testing"

// TestBinaryRule: programs and libraries are high by their first bytes,
// whatever their name; other files with NUL bytes are low; text is text.
func TestBinaryRule(t *testing.T) {
	tests := []struct {
		name, data string
		want       Severity // "" for no binary finding
	}{
		{"elf", "\x7fELF\x02\x01\x01\x00", High},
		{"elf without a NUL", "\x7fELF", High},
		{"mach-o 64 le", "\xcf\xfa\xed\xfe\x07\x00\x00\x01", High},
		{"mach-o 32 be", "\xfe\xed\xfa\xce\x00", High},
		{"mach-o fat", "\xca\xfe\xba\xbe\x00\x00\x00\x02", High},
		{"pe", "MZ\x90\x00\x03\x00\x00\x00", High},
		{"wasm", "\x00asm\x01\x00\x00\x00", High},
		{"ar archive", "!<arch>\nlib.o/", High},
		{"png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", Low},
		{"text starting MZ", "MZ tools: notes on the build\n", ""},
		{"text", "# Notes\nplain words\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Severity
			for _, f := range Files(map[string][]byte{"f": []byte(tt.data)}) {
				if f.Rule == RuleBinary {
					got = f.Severity
				}
			}
			if got != tt.want {
				t.Errorf("severity %q, want %q", got, tt.want)
			}
		})
	}
}
