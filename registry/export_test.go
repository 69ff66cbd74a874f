package registry

// Hooks for the tests in package registry_test, which build registries
// with registrytest (an internal test cannot import it: it imports registry).

func (r *Registry) Abs(rel string) string { return r.abs(rel) }

func (r *Registry) JournalPath() string { return r.journalPath() }

type Journal = journal

var OpenAt = openAt
