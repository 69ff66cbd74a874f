package registry

import (
	"fmt"
	"os"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
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
func (r *Registry) CommitConfig(data []byte, subject string) (gitstore.Hash, error) {
	return r.Write(func() (string, []Change, error) {
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
