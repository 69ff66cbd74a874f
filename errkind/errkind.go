// Package errkind is the family of sentinel errors that say what kind of
// failure an error is, whichever package made it: the command layer maps
// a kind to its exit code (errors.Is), and a package with its own wording
// makes a member of the family (Invalid) rather than a sentinel of its
// own. A pure leaf: every package may import it.
package errkind

import "errors"

// ErrInvalid marks bad input: a name, a verdict word, a file, a field.
var ErrInvalid = errors.New("invalid input")

// Invalid is a member of the ErrInvalid family that prints as label (a
// package's own prefix, such as "config"): errors.Is(err, ErrInvalid)
// holds for it and for every error wrapping it.
func Invalid(label string) error { return invalid(label) }

type invalid string

func (e invalid) Error() string { return string(e) }

func (e invalid) Is(target error) bool { return target == ErrInvalid }
