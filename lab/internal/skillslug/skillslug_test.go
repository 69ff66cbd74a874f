package skillslug

import "testing"

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Pandas":           "pandas",
		"scikit_learn 1.2": "scikit-learn-1-2",
		"  --weird__Name!": "weird-name",
		"Ångström":         "ngstr-m",
		"":                 "",
		"@@@":              "",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
