package hook

import (
	"errors"
	"os"

	"github.com/megagit/megagit/local"
)

// ReadDecisions reads the decision log in the registry's local folder (for
// `megagit decisions` and tune); a log never written is an empty one.
func ReadDecisions(dir local.Dir) ([]Decision, error) {
	data, err := dir.Read(DecisionLog)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return ParseDecisions(data), nil
}
