// Package install is `megagit skill install`, `skill update` and `skill
// verify` on a registry: it writes skills fetched from a git source with
// their provenance in .megagit/skills.lock (one commit, all or nothing),
// plans updates against the sources now (what changed there and here, the
// lines an update replaces), and checks the lock against the registry for
// doctor and verify. The lock's format is registry/skillslock; fetching a
// source is registry/regsync; the registry itself only carries a skill's
// lock entry along when the skill is renamed or removed.
package install
