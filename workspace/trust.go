package workspace

import (
	"os"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/registry"
)

// localTracked says whether the registry's .megagit/local/config.yaml,
// which holds this machine's own settings, is in fact a file git tracks
// (a teammate's commit brought in by plain git: on the registry's branch,
// or in the ref layout on the project's branch or in its index; in any
// spelling a case-insensitive file system takes for it): then it is not
// this machine's, and is not read.
func localTracked(reg *registry.Registry, files config.Files) bool {
	if files.Local == "" {
		return false
	}
	if _, err := os.Lstat(files.Local); err != nil {
		return false
	}
	return reg.TracksLocal(config.LocalPath)
}

// trackedLocalNote says a tracked local config is ignored, and the fix.
func trackedLocalNote(file string) string {
	return file + " is tracked by git, so it is not this machine's own: megagit ignores it (`megagit doctor --fix` stops tracking it, keeping the file)"
}
