package decisionlog

import (
	"errors"
	"os"

	"github.com/megagit/megagit/local"
)

// Read reads the decision log in the registry's local folder (for
// `megagit decisions` and tune); a log never written is an empty one.
func Read(dir local.Dir) ([]Entry, error) {
	data, err := dir.Read(File)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return Parse(data), nil
}
