package registry

import (
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
)

// layoutCheck is doctor's word on where verdicts go. In the ref layout:
// .megagit/ must be ignored by the project and every skill root inside
// it, else a verdict would edit files of the project's branch. In the
// branch layout: a registry inside a project (its folder is not the
// repository's top, or the checked-out branch holds files that are not
// the registry's) commits verdicts onto the developer's branch, which then
// carries them into its pull requests: a warning on the default branch, a
// failure on any other.
func (r *Registry) layoutCheck() doctor.Check {
	const name = "layout"
	if r.ref != "" {
		if !r.ignoresMetaDir() {
			return doctor.Check{Name: name, Status: doctor.Fail, Detail: refIgnoreFile + " is missing or lacks `*`: the project's git would see megagit's files",
				Hint: "write a line `*` to " + refIgnoreFile}
		}
		var outside []string
		for _, root := range r.opts.Roots {
			if !strings.HasPrefix(path.Clean(root)+"/", local.MetaDir+"/") {
				outside = append(outside, root)
			}
		}
		if len(outside) > 0 {
			if r.InterruptedMoveToRef() {
				return doctor.Check{Name: name, Status: doctor.Fail,
					Detail: fmt.Sprintf("an interrupted `megagit layout ref`: branch %s has no commit yet and the skill root(s) %s are still the project's", r.ref.Short(), strings.Join(outside, ", ")),
					Hint:   "`megagit layout ref` (or `megagit doctor --fix`) finishes it"}
			}
			return doctor.Check{Name: name, Status: doctor.Fail,
				Detail: fmt.Sprintf("skill root(s) %s are outside %s/: verdicts would edit files of the project's branch", strings.Join(outside, ", "), local.MetaDir),
				Hint:   "set `roots: [" + RefSkillsRoot + "]` in " + local.ConfigPath + " and move the skills there"}
		}
		ok := doctor.Check{Name: name, Status: doctor.OK, Detail: "ref: skills, ledgers and evidence on branch " + r.ref.Short() + ", in " + local.MetaDir + "/ (ignored by the project)"}
		if meta, skills := r.trackedByProject(); meta || len(skills) > 0 {
			var steps []string
			if meta {
				steps = append(steps, "git rm -r -q --cached "+local.MetaDir)
			}
			if len(skills) > 0 { // their copies are in RefSkillsRoot
				steps = append(steps, "git rm -r -q "+strings.Join(skills, " "))
			}
			return doctor.Check{Name: name, Status: doctor.Warn,
				Detail: ok.Detail + "; but the checked-out branch still tracks the registry's old files",
				Hint:   "remove them from the project, on its main branch: `" + strings.Join(steps, " && ") + ` && git commit -m "megagit: the registry moved to its own branch"` + "`"}
		}
		return ok
	}
	branch, head, err := r.Head()
	if err != nil || head.IsZero() {
		return doctor.Check{Name: name, Status: doctor.OK, Detail: "branch: the registry commits to the checked-out branch"}
	}
	foreign := r.projectFiles(head)
	if len(foreign) == 0 {
		return doctor.Check{Name: name, Status: doctor.OK, Detail: "branch: a repository of its own; the registry commits to " + branch.Short()}
	}
	detail := fmt.Sprintf("the registry is inside a project (%s) and commits verdicts to its checked-out branch %s", strings.Join(foreign, ", "), branch.Short())
	hint := "keep the registry on a branch of its own: `megagit layout ref` (docs/layouts.md)"
	if r.isDefaultBranch(branch) {
		return doctor.Check{Name: name, Status: doctor.Warn, Detail: detail, Hint: hint}
	}
	return doctor.Check{Name: name, Status: doctor.Fail, Detail: detail + ", so they end up in its pull requests", Hint: hint}
}

// projectFiles names (up to three) top-level entries of commit h that are
// not the registry's: anything outside .megagit/, the skill roots, git's
// own files, READMEs, licences and the agents' settings folders. A
// registry kept in a subfolder is inside a project by definition.
func (r *Registry) projectFiles(h gitstore.Hash) []string {
	if r.prefix != "" {
		return []string{"the registry is in its subfolder " + r.prefix}
	}
	tree, err := r.CommitTree(h)
	if err != nil || tree == nil {
		return nil
	}
	own := map[string]bool{local.MetaDir: true, ".gitattributes": true, ".gitignore": true, ".github": true, ".gitlab-ci.yml": true,
		".claude": true, ".agents": true, ".gemini": true, ".codex": true, ".mcp.json": true}
	for _, root := range r.opts.Roots {
		own[strings.SplitN(path.Clean(root), "/", 2)[0]] = true
	}
	var out []string
	for _, e := range tree.Entries() {
		upper := strings.ToUpper(e.Name)
		if own[e.Name] || strings.HasPrefix(upper, "README") || strings.HasPrefix(upper, "LICENSE") || strings.HasPrefix(upper, "LICENCE") || strings.HasPrefix(upper, "CHANGELOG") {
			continue
		}
		out = append(out, e.Name)
	}
	sort.Strings(out)
	if len(out) > 3 {
		out = append(out[:3], "…")
	}
	return out
}

// isDefaultBranch reports whether branch is the repository's main line:
// the branch origin's HEAD names, else main, master or trunk.
func (r *Registry) isDefaultBranch(branch gitstore.RefName) bool {
	if target, ok, err := r.git.SymRef(gitstore.RemoteHEADRef("origin")); err == nil && ok {
		return target.Short() == "origin/"+branch.Short()
	}
	switch branch.Short() {
	case "main", "master", "trunk":
		return true
	}
	return false
}

// InterruptedMoveToRef reports the state an older megagit killed during
// `megagit layout ref` left (it wrote RefFile before its journal): the
// ref layout, its branch without a commit, and skill roots outside
// .megagit/, as the config of the branch layout had them. Running the move
// again finishes it. (Init makes the first commit of a ref layout's branch,
// so a branch without one is a move that never finished.)
func (r *Registry) InterruptedMoveToRef() bool {
	if r.ref == "" {
		return false
	}
	if _, h, err := r.Head(); err != nil || !h.IsZero() {
		return false
	}
	for _, root := range r.opts.Roots {
		if !strings.HasPrefix(path.Clean(root)+"/", local.MetaDir+"/") {
			return true
		}
	}
	return false
}

// trackedByProject says what the checked-out branch of a ref-layout
// registry still tracks of the registry after `megagit layout ref`:
// .megagit/ itself, and the old folders (in the default roots) of skills
// now in RefSkillsRoot.
func (r *Registry) trackedByProject() (meta bool, skills []string) {
	_, head, err := r.checkedOut()
	if err != nil || head.IsZero() {
		return false, nil
	}
	tree, err := r.CommitTree(head)
	if err != nil || tree == nil {
		return false, nil
	}
	_, meta, _ = tree.Find(r.GitPath(local.MetaDir))
	mine, err := os.ReadDir(r.abs(RefSkillsRoot))
	if err != nil {
		return meta, nil
	}
	for _, root := range DefaultRoots {
		for _, e := range mine {
			old := path.Join(root, e.Name())
			if _, ok, _ := tree.Find(r.GitPath(path.Join(old, "SKILL.md"))); ok {
				skills = append(skills, old)
			}
		}
	}
	return meta, skills
}
