package dense

import (
	"testing"

	"github.com/megagit/megagit/models"
)

func TestFolderProfile(t *testing.T) {
	tests := []struct {
		name, id, dir string
		want          string
		known         bool
	}{
		{"default id: by folder name", models.BuiltinID, "/m/all-MiniLM-L6-v2", "all-minilm-l6-v2", true},
		{"unknown folder: defaults", models.BuiltinID, "/m/tiny", "tiny", false},
		{"profile id wins over the name", "bge-small", "/m/e5-small-v2", "bge-small-en-v1.5", true},
		{"unknown id: by folder name", "nope", "/m/e5-small-v2", "e5-small-v2", true},
		{"static id is no ONNX profile", "", "/m/" + models.BuiltinID, models.BuiltinID, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, known := folderProfile(tt.id, tt.dir)
			if p.ID != tt.want || known != tt.known || p.Kind != "onnx" {
				t.Errorf("folderProfile(%q, %q) = %s (%s), %v; want %s (onnx), %v", tt.id, tt.dir, p.ID, p.Kind, known, tt.want, tt.known)
			}
			if isDefaultProfile(p) == tt.known {
				t.Errorf("isDefaultProfile(%s) = %v, want %v", p.ID, !tt.known, !tt.known)
			}
		})
	}
}
