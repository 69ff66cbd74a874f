package registry

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/registry/skillslock"
)

// ReadLock reads the registry's lock file as it is on disk: an empty lock
// when there is none, an error naming it when it is there but empty (a
// lock megagit wrote always holds its version: an emptied one has lost
// the record of what is installed, which reading it as "nothing" would
// hide).
func (r *Registry) ReadLock() (skillslock.Lock, error) {
	data, err := r.readCapped(skillslock.File, maxImportFile)
	if errors.Is(err, os.ErrNotExist) {
		return skillslock.Parse(nil)
	}
	if err != nil {
		return skillslock.Lock{}, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return skillslock.Lock{}, fmt.Errorf("%w: %s is empty, so which skills were installed from where is lost: bring it back with `git checkout HEAD -- %s` (or `git log -p -- %s` for an older version), or delete it if none is", errkind.ErrInvalid, skillslock.File, skillslock.File, skillslock.File)
	}
	return skillslock.Parse(data)
}
