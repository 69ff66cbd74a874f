package registry

import (
	"fmt"
	"os"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/megagit/megagit/local"
)

// ReadConfigFile returns .megagit/config.yaml as committed in the work tree
// (empty when absent), for callers that edit settings.
func (r *Registry) ReadConfigFile() ([]byte, error) {
	data, err := r.readCapped(local.ConfigPath, local.MaxConfig)
	if os.IsNotExist(err) {
		return nil, nil
	}
	return data, err
}

// CommitConfig writes .megagit/config.yaml and commits it (and only it), so a
// settings change is shared and revertable like a verdict.
func (r *Registry) CommitConfig(data []byte, subject string) (plumbing.Hash, error) {
	return r.writeLockedRaw(func() (string, []Change, error) {
		old, err := r.ReadConfigFile()
		if err != nil {
			return "", nil, err
		}
		if string(old) == string(data) {
			return "", nil, nil
		}
		return fmt.Sprintf("config: %s\n\nMegagit-Action: config\n", subject), []Change{{Path: local.ConfigPath, Data: data}}, nil
	})
}
