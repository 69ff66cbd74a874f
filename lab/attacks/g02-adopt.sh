#!/usr/bin/env bash
# g02-adopt: adopt then adopt --restore must never delete a skill's .git
# (issue 38 finding 2), in the project and user scopes, whatever form the
# .git takes: a clone's folder, a worktree's or submodule's .git file, a
# nested repository deeper in the skill, a skill folder that is a symlink
# to a clone. And a plain skill comes back byte for byte.
. "$(dirname "$0")/lib.sh"

# state DIR: what must survive: the clone's log, its status, its files.
state() { (cd "$1" && git log --format=%H%s 2>&1; git status --porcelain 2>&1; find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum 2>&1; ls -la .git 2>&1 | wc -l); }

mkclone() { # mkclone UPSTREAM DEST NAME: a clone of a skill with an unpushed commit
	git clone -q "$1" "$2" 2>/dev/null
	skill_md "$3" "Handle $3 for docker builds. Use when the docker build needs $3." >"$2/SKILL.md"
	echo note >"$2/notes.md"
	git -C "$2" add -A && git -C "$2" commit -qm "local, not pushed"
}

fresh_home
git init -q --bare up.git
git clone -q up.git seed 2>/dev/null && skill_md seed "Seed skill for builds. Use when seeding." >seed/SKILL.md && git -C seed add -A && git -C seed commit -qm first && git -C seed push -q origin HEAD:main
mkreg r >/dev/null
P=$T/r
# Project scope, four shapes.
mkclone up.git "$P/.claude/skills/clone-a" clone-a
mkclone up.git "$P/.agents/skills/clone-b" clone-b
git -C "$P/.claude/skills/clone-a" worktree add -q "$P/.claude/skills/wt-c" -b wt 2>/dev/null
skill_md wt-c "Worktree skill for docker builds. Use when the docker build needs wt-c." >"$P/.claude/skills/wt-c/SKILL.md"
mkdir -p "$P/.agents/skills/nested-d/vendor"
skill_md nested-d "Nested repo skill for docker builds. Use when the docker build needs nested-d." >"$P/.agents/skills/nested-d/SKILL.md"
git clone -q up.git "$P/.agents/skills/nested-d/vendor/lib" 2>/dev/null
echo x >"$P/.agents/skills/nested-d/vendor/lib/x.txt" && git -C "$P/.agents/skills/nested-d/vendor/lib" add -A && git -C "$P/.agents/skills/nested-d/vendor/lib" commit -qm unpushed
mkclone up.git "$T/elsewhere/clone-e" clone-e
ln -s "$T/elsewhere/clone-e" "$P/.claude/skills/clone-e"
mkdir -p "$P/.agents/skills/plain-f/scripts" && skill_md plain-f "Plain skill for docker builds. Use when the docker build needs plain-f." >"$P/.agents/skills/plain-f/SKILL.md" && printf '#!/bin/sh\necho hi\n' >"$P/.agents/skills/plain-f/scripts/run.sh" && chmod +x "$P/.agents/skills/plain-f/scripts/run.sh"
# User scope.
mkclone up.git "$HOME/.claude/skills/clone-u" clone-u
mkclone up.git "$HOME/.agents/skills/clone-v" clone-v
declare -A before
for s in "$P/.claude/skills/clone-a" "$P/.agents/skills/clone-b" "$P/.claude/skills/wt-c" "$P/.agents/skills/nested-d/vendor/lib" "$T/elsewhere/clone-e" "$HOME/.claude/skills/clone-u" "$HOME/.agents/skills/clone-v"; do
	before[$s]=$(state "$s")
done
plain_before=$(cd "$P/.agents/skills/plain-f" && find . -type f -exec sha256sum {} + | sort; stat -c %a scripts/run.sh)

(cd r && mg adopt >/dev/null 2>&1; mg adopt --scope user >/dev/null 2>&1)
why=""
# adopt hides skills with the agents' settings (Gemini CLI's skills.disabled
# for .agents/skills); a skill it did not hide means the attack did not run.
grep -q plain-f r/.gemini/settings.json 2>/dev/null || why="plain-f was not adopted (the attack did not run)"
[ -f r/skills/plain-f/SKILL.md ] && why="$why; adopt moved plain-f into the registry"
for s in "${!before[@]}"; do
	[ -d "$s/.git" ] || [ -f "$s/.git" ] || why="$why; adopt removed $s/.git"
done
git -C r ls-tree -r HEAD --name-only | grep -q '/\.git/' && why="$why; a .git folder's files are in the registry commit"
verdict adopt-keeps-git-folders "${why#; }"

(cd r && mg adopt --restore --scope all >/dev/null 2>&1)
rc=$?
why=""
[ "$rc" = 0 ] || why="restore exit $rc"
for s in "${!before[@]}"; do
	now=$(state "$s")
	[ "$now" = "${before[$s]}" ] || why="$why; ${s#$T/} changed: $(diff <(echo "${before[$s]}") <(echo "$now") | head -3 | tr '\n' ' ')"
done
verdict adopt-restore-keeps-git "${why#; }"
plain_after=$(cd "$P/.agents/skills/plain-f" 2>/dev/null && find . -type f -exec sha256sum {} + | sort; stat -c %a scripts/run.sh)
verdict adopt-restore-plain-skill-identical "$([ "$plain_before" = "$plain_after" ] || echo "plain skill differs after restore: $(diff <(echo "$plain_before") <(echo "$plain_after") | head -4 | tr '\n' ' ')")"

# A second round: adopt, edit the adopted copy (a verdict), restore again.
(cd r && mg adopt >/dev/null 2>&1 && mg verdict plain-f HELPFUL --reason ok >/dev/null 2>&1; mg adopt --restore >/dev/null 2>&1)
why=""
for s in "${!before[@]}"; do
	[ "$(state "$s")" = "${before[$s]}" ] || why="$why; ${s#$T/} changed on the second round"
done
[ -f "$P/.agents/skills/plain-f/SKILL.md" ] || why="$why; plain-f not restored"
fsck_ok r || why="$why; git fsck fails"
verdict adopt-restore-second-round "${why#; }"

# .GIT in upper case and a .git that is an empty file: neither may be
# carried into a commit (git refuses .git in any case).
fresh_home
mkreg r >/dev/null
mkdir -p r/.agents/skills/upper-g/.GIT && skill_md upper-g "Upper skill for docker builds. Use when the docker build needs upper-g." >r/.agents/skills/upper-g/SKILL.md && echo "[core]" >r/.agents/skills/upper-g/.GIT/config
mkdir -p r/.agents/skills/gitfile-h && skill_md gitfile-h "Gitfile skill for docker builds. Use when the docker build needs gitfile-h." >r/.agents/skills/gitfile-h/SKILL.md && echo "gitdir: /nonexistent" >r/.agents/skills/gitfile-h/.git
(cd r && mg adopt >/dev/null 2>&1)
why=""
git -C r ls-tree -r HEAD --name-only | grep -qi '/\.git\(/\|$\)' && why="a .git/.GIT path is in the registry commit"
fsck_ok r || why="$why; git fsck --strict fails after adopt"
[ -f r/.agents/skills/gitfile-h/.git ] || [ -f r/skills/gitfile-h/.git ] || why="$why; the .git file of gitfile-h is gone"
[ -f r/.agents/skills/upper-g/.GIT/config ] || [ -f r/skills/upper-g/.GIT/config ] || why="$why; upper-g/.GIT/config gone"
(cd r && mg adopt --restore >/dev/null 2>&1)
[ -f r/.agents/skills/gitfile-h/.git ] || why="$why; restore lost gitfile-h/.git"
[ -f r/.agents/skills/upper-g/.GIT/config ] || why="$why; restore lost upper-g/.GIT/config"
verdict adopt-git-case-and-gitfile "${why#; }"

summary
