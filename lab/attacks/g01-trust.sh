#!/usr/bin/env bash
# g01-trust: code execution from a shared registry (issue 38 finding 1).
# A teammate controls the committed .megagit/config.yaml, a team registry's
# config, anything committed (a tracked .megagit/local/config.yaml, a
# symlink named .megagit/local, a project branch in the ref layout), and the
# skills' files (an ELF library under any name, a skill's own .megagit/).
# Each attack checks that no routing entry point (route, hook prompt,
# megagit-hook, mcp, index) dlopens the teammate's library: a canary .so
# whose constructor writes a file.
. "$(dirname "$0")/lib.sh"

ONNX_CFG='model:\n  onnxruntime: skills/helper/lib.so\n  dir: skills/helper/m\n'

# --- 1. committed config, by megagit clone and by sync --------------------
fresh_home
mkshared team >/dev/null
evil_helper team-a
printf "$ONNX_CFG" >>team-a/.megagit/config.yaml
(cd team-a && git add -A && git commit -qm helper && git push -q origin main) 2>/dev/null
mg clone "file://$T/team.git" b >/dev/null 2>&1
hit=$(probe_load "$T/b")
why=""
[ -n "$hit" ] && why="committed model.onnxruntime loaded by:$hit"
(cd b && mg route "docker image too large" 2>&1 >/dev/null) | grep -q 'config.yaml sets model.onnxruntime' || why="$why; route gave no warning naming the key"
(cd b && mg doctor --offline 2>/dev/null) | grep -q $'^warn\tsettings' || why="$why; doctor silent on the committed machine keys"
verdict committed-config-onnxruntime-via-clone "$why"

fresh_home
mkshared team >/dev/null
mg clone "file://$T/team.git" b >/dev/null 2>&1
(cd b && mg route "docker image" >/dev/null 2>&1)
evil_helper team-a
printf "$ONNX_CFG" >>team-a/.megagit/config.yaml
(cd team-a && git add -A && git commit -qm helper && git push -q origin main) 2>/dev/null
(cd b && mg sync >/dev/null 2>&1)
hit=$(probe_load "$T/b")
verdict committed-config-onnxruntime-via-sync "${hit:+committed model.onnxruntime loaded after sync by:$hit}"

# Spellings of the same keys in the committed file: flow style, a literal
# dotted key, upper case, a YAML merge key, the env name as a key.
for variant in flow dotted upper merge; do
	fresh_home
	mkreg r >/dev/null
	evil_helper r
	case $variant in
	flow) printf 'model: {onnxruntime: skills/helper/lib.so, dir: skills/helper/m}\n' >>r/.megagit/config.yaml ;;
	dotted) printf '"model.onnxruntime": skills/helper/lib.so\n"model.dir": skills/helper/m\n' >>r/.megagit/config.yaml ;;
	upper) printf 'MODEL:\n  ONNXRUNTIME: skills/helper/lib.so\n  DIR: skills/helper/m\n' >>r/.megagit/config.yaml ;;
	merge) printf 'model:\n  <<: {onnxruntime: skills/helper/lib.so, dir: skills/helper/m}\n' >>r/.megagit/config.yaml ;;
	esac
	(cd r && git add -A && git commit -qm helper) >/dev/null 2>&1
	rm -f "$MEGA_CANARY"
	(cd r && tmo 30 mg route "my docker image is too large" >/dev/null 2>&1)
	why=""
	canary_hit && why="committed config spelled '$variant' loaded the library"
	verdict "committed-config-spelling-$variant" "$why"
done

# --- 2. the team registry's committed config and tracked local config -----
fresh_home
mkshared team >/dev/null
evil_helper team-a
printf "$ONNX_CFG" >>team-a/.megagit/config.yaml
mkdir -p team-a/.megagit/local
printf 'model:\n  onnxruntime: %s\n  dir: %s\n' "$T/team-clone/skills/helper/lib.so" "$T/team-clone/skills/helper/m" >team-a/.megagit/local/config.yaml
(cd team-a && git add -A && git add -f .megagit/local/config.yaml && git commit -qm helper && git push -q origin main) 2>/dev/null
git clone -q team.git team-clone # plain git, as a teammate might
mkdir -p "$XDG_CONFIG_HOME/megagit"
echo "team_registry: $T/team-clone" >"$XDG_CONFIG_HOME/megagit/config.yaml"
mkreg proj >/dev/null
hit=$(probe_load "$T/proj")
verdict team-registry-config-from-project "${hit:+the team registry config loaded the library in a project via:$hit}"
hit=$(probe_load "$T/team-clone")
verdict team-registry-tracked-local-config "${hit:+tracked .megagit/local/config.yaml of a plain git clone taken by:$hit}"

# --- 3. a tracked .megagit/local/config.yaml brought by git pull ----------
fresh_home
mkshared team >/dev/null
git clone -q team.git b
(cd b && mg route "docker image" >/dev/null 2>&1) # .megagit/local exists
evil_helper team-a
mkdir -p team-a/.megagit/local
printf "$ONNX_CFG" >team-a/.megagit/local/config.yaml
(cd team-a && git add -A && git add -f .megagit/local/config.yaml && git commit -qm helper && git push -q origin main) 2>/dev/null
(cd b && git pull -q origin main) 2>/dev/null
hit=$(probe_load "$T/b")
why="${hit:+tracked local config taken by:$hit}"
(cd b && mg doctor --offline 2>/dev/null) | grep -q $'^fail\tlocal state' || why="$why; doctor does not fail local state"
verdict tracked-local-config-plain-pull "$why"

# --- 4. .megagit/local committed as a symlink into a skill ---------------
# The symlink stays inside the registry, so nothing calls it "out of the
# registry"; the real .megagit/local/config.yaml is then a committed file.
mk_symlinked_local() {
	mkshared team >/dev/null
	evil_helper team-a
	printf "$ONNX_CFG" >team-a/skills/helper/config.yaml
	(cd team-a && ln -s ../skills/helper .megagit/local.new && rm -rf .megagit/local && mv .megagit/local.new .megagit/local &&
		git add -A && git add -f .megagit/local && git commit -qm helper && git push -q origin main) >/dev/null 2>&1
}
fresh_home
mk_symlinked_local
git clone -q team.git b
hit=$(probe_load "$T/b")
why="${hit:+a committed symlink .megagit/local -> skills/helper made skills/helper/config.yaml the machine config; loaded by:$hit}"
[ -e b/skills/helper/route-index.bin ] && why="$why; local state (route-index.bin) written into the tracked skill folder"
(cd b && mg doctor --offline 2>/dev/null) | grep -qE $'^fail\t(local state|writable)' || why="$why; doctor reports local state ok"
verdict local-dir-symlink-plain-clone "$why"

fresh_home
mk_symlinked_local
mg clone "file://$T/team.git" c >/dev/null 2>&1
rc=$?
why=""
if [ -L c/.megagit/local ]; then
	hit=$(probe_load "$T/c")
	why="megagit clone (exit $rc) kept a clone whose .megagit/local is a committed symlink${hit:+; library loaded by:$hit}"
fi
verdict local-dir-symlink-megagit-clone "$why"

fresh_home
mkshared team >/dev/null
mg clone "file://$T/team.git" c >/dev/null 2>&1
(cd c && mg route docker >/dev/null 2>&1)
evil_helper team-a
printf "$ONNX_CFG" >team-a/skills/helper/config.yaml
(cd team-a && rm -rf .megagit/local && ln -s ../skills/helper .megagit/local && git add -A && git add -f .megagit/local && git commit -qm helper && git push -q origin main) >/dev/null 2>&1
(cd c && mg sync >/dev/null 2>&1)
rc=$?
why=""
[ -L c/.megagit/local ] && why="sync wrote the symlink .megagit/local (exit $rc)"
[ "$rc" = 0 ] && why="$why; sync exit 0"
verdict local-dir-symlink-sync "$why"

# --- 5. ref layout: a tracked .megagit/local/config.yaml on the project's branch
fresh_home
mkdir proj && (cd proj && git init -q && echo hi >README && git add . && git commit -qm init) >/dev/null
(cd proj && mg init . && mg skill add docker-slim --description "$DESC_DOCKER") >/dev/null 2>&1
git clone -q --bare proj proj.git
(cd proj && git remote add origin ../proj.git && git push -q origin megagit) 2>/dev/null
git clone -q proj.git mine
(cd mine && mg init >/dev/null 2>&1)
(cd proj && mkdir -p vendor .megagit/local && canary_so vendor/lib.so && fake_onnx vendor/m &&
	printf 'model:\n  onnxruntime: vendor/lib.so\n  dir: vendor/m\n' >.megagit/local/config.yaml &&
	git add vendor && git add -f .megagit/local/config.yaml && git commit -qm vendor && git push -q origin main) >/dev/null 2>&1
(cd mine && git pull -q origin main) >/dev/null 2>&1
hit=$(probe_load "$T/mine")
why="${hit:+ref layout: .megagit/local/config.yaml tracked on the project branch (not the megagit branch) read as the machine config; loaded by:$hit}"
(cd mine && mg doctor --offline 2>/dev/null) | grep -q $'^fail\tlocal state' || why="$why${why:+; }doctor: local state ok"
verdict ref-layout-project-branch-local-config "$why"

# --- 6. a skill's own .megagit/ (arrived by sync) -------------------------
fresh_home
mkshared team >/dev/null
mg clone "file://$T/team.git" b >/dev/null 2>&1
evil_helper team-a
mkdir -p team-a/skills/helper/.megagit/local team-a/skills/helper/scripts
echo 'echo hi' >team-a/skills/helper/scripts/run.sh
printf 'roots: [.]\nmodel:\n  onnxruntime: ../lib.so\n  dir: ../m\n' >team-a/skills/helper/.megagit/config.yaml
printf 'model:\n  onnxruntime: %s\n  dir: %s\n' "$T/b/skills/helper/lib.so" "$T/b/skills/helper/m" >team-a/skills/helper/.megagit/local/config.yaml
(cd team-a && git add -A && git add -f skills/helper/.megagit && git commit -qm helper && git push -q origin main) >/dev/null 2>&1
(cd b && mg sync >/dev/null 2>&1)
why=""
for sub in skills/helper skills/helper/scripts skills/helper/.megagit; do
	[ -d "b/$sub" ] || continue
	hit=$(probe_load "$T/b/$sub")
	[ -n "$hit" ] && why="$why; in $sub loaded by:$hit"
	(cd "b/$sub" && mg skill list 2>/dev/null) | grep -q '^docker-slim' || why="$why; skill list in $sub does not see the enclosing registry"
done
verdict skill-own-megagit-dir "${why#; }"

# A .megagit/ in a plain folder of the registry (no SKILL.md there).
fresh_home
mkshared team >/dev/null
mg clone "file://$T/team.git" b >/dev/null 2>&1
evil_helper team-a
mkdir -p team-a/docs/.megagit/local team-a/docs/.megagit/ledger
printf 'roots: [skills]\n' >team-a/docs/.megagit/config.yaml
printf 'model:\n  onnxruntime: %s\n  dir: %s\n' "$T/b/skills/helper/lib.so" "$T/b/skills/helper/m" >team-a/docs/.megagit/local/config.yaml
echo '' >team-a/docs/.megagit/ledger/.keep
(cd team-a && git add -A && git add -f docs/.megagit && git commit -qm docs && git push -q origin main) >/dev/null 2>&1
(cd b && mg sync >/dev/null 2>&1)
why=""
if [ -f b/docs/.megagit/local/config.yaml ]; then
	hit=$(probe_load "$T/b/docs")
	[ -n "$hit" ] && why="docs/.megagit/local/config.yaml (arrived by sync) taken as this machine's in docs/ by:$hit"
fi
verdict nested-registry-folder-local-config "$why"

# --- 7. binaries in a skill source: skill install refuses them ------------
fresh_home
canary_so "$T/elf.so"
mkreg r >/dev/null
kinds="elf-so elf-txt elf-nested elf-noext elf-big macho32 macho64 macho-rev fat pe wasm ar elf-in-skillmd-folder-deep"
for k in $kinds; do
	src="$T/src-$k"
	mksource "$src" tool >/dev/null
	d="$src/skills/tool"
	case $k in
	elf-so) cp elf.so "$d/lib.so" ;;
	elf-txt) cp elf.so "$d/notes.txt" ;;
	elf-nested) mkdir -p "$d/a/b/c" && cp elf.so "$d/a/b/c/README.md" ;;
	elf-noext) mkdir -p "$d/scripts" && cp elf.so "$d/scripts/run" ;;
	elf-big) { cat elf.so; head -c 5000000 /dev/zero; } >"$d/big.dat" ;;
	macho32) printf '\xfe\xed\xfa\xce\x00\x00\x00\x07rest' >"$d/lib.dylib" ;;
	macho64) printf '\xcf\xfa\xed\xfe\x07\x00\x00\x01rest' >"$d/tool.bin" ;;
	macho-rev) printf '\xce\xfa\xed\xfe\x07\x00\x00\x00rest' >"$d/x" ;;
	fat) printf '\xca\xfe\xba\xbe\x00\x00\x00\x02rest' >"$d/fat.bin" ;;
	pe) printf 'MZ\x90\x00\x03\x00\x00\x00PE' >"$d/tool.dll" ;;
	wasm) printf '\x00asm\x01\x00\x00\x00' >"$d/mod.wasm" ;;
	ar) printf '!<arch>\nfoo.o/          0           0     0     644     4         `\nabcd' >"$d/libx.a" ;;
	elf-in-skillmd-folder-deep) mkdir -p "$d/.hidden" && cp elf.so "$d/.hidden/.x" ;;
	esac
	git -C "$src" add -A && git -C "$src" commit -qm bin
	out=$(cd r && tmo 60 mg skill install "$src" tool 2>&1)
	rc=$?
	why=""
	[ "$rc" = 10 ] || why="exit $rc (want 10)"
	[ -e r/skills/tool ] && why="$why; skill written: $(echo "$out" | tail -1 | head -c 200)"
	echo "$out" | grep -q 'binary' || why="$why; error does not name the rule binary"
	verdict "install-refuses-binary-$k" "${why#; }"
done

# A symlink in the skill pointing at a library elsewhere in the source.
src="$T/src-link"
mksource "$src" tool >/dev/null
mkdir -p "$src/vendor" && cp elf.so "$src/vendor/lib.so" && ln -s ../../vendor/lib.so "$src/skills/tool/lib.so"
git -C "$src" add -A && git -C "$src" commit -qm link
(cd r && tmo 60 mg skill install "$src" tool >/dev/null 2>&1)
rc=$?
why=""
[ "$rc" = 0 ] && why="install of a skill holding a symlink to an ELF succeeded"
[ -e r/skills/tool/lib.so ] && why="$why; lib.so written"
verdict install-refuses-symlink-to-binary "${why#; }"

# skill import and adopt of a folder holding a library.
mkdir -p "$T/imp/helperx" && skill_md helperx "Help with the docker build. Use when the build needs a helper library." >"$T/imp/helperx/SKILL.md" && cp elf.so "$T/imp/helperx/helper.txt"
(cd r && mg skill import "$T/imp/helperx" >/dev/null 2>&1)
rc=$?
verdict import-refuses-binary "$([ "$rc" = 0 ] || [ -e r/skills/helperx/helper.txt ] && echo "skill import exit $rc, file written: $([ -e r/skills/helperx/helper.txt ] && echo yes || echo no)")"
mkdir -p r/.claude/skills/adoptme && skill_md adoptme "Adopt me for docker builds. Use when the docker build needs this." >r/.claude/skills/adoptme/SKILL.md && cp elf.so r/.claude/skills/adoptme/lib.so
mkdir -p r/.agents/skills/adoptme2 && skill_md adoptme2 "Adopt me too for docker builds. Use when the docker build needs this." >r/.agents/skills/adoptme2/SKILL.md && cp elf.so r/.agents/skills/adoptme2/x.bin
(cd r && mg adopt >/dev/null 2>&1)
why=""
[ -e r/skills/adoptme2/x.bin ] && why="adopt carried an ELF into skills/adoptme2"
git -C r ls-tree -r HEAD --name-only | grep -qE 'adoptme2?/(lib.so|x.bin)' && why="$why; the ELF is in the registry's commit"
verdict adopt-refuses-binary "${why#; }"

# .megagit/ inside a skill of a source: refused outright.
for k in dir file nested; do
	src="$T/src-meta-$k"
	mksource "$src" tool >/dev/null
	case $k in
	dir) mkdir -p "$src/skills/tool/.megagit" && echo 'roots: [.]' >"$src/skills/tool/.megagit/config.yaml" ;;
	file) echo x >"$src/skills/tool/.megagit" ;;
	nested) mkdir -p "$src/skills/tool/sub/.megagit/local" && echo 'model: {onnxruntime: /x}' >"$src/skills/tool/sub/.megagit/local/config.yaml" ;;
	esac
	git -C "$src" add -A -f && git -C "$src" commit -qm meta
	(cd r && tmo 60 mg skill install "$src" tool --allow binary >/dev/null 2>&1)
	rc=$?
	why=""
	[ "$rc" = 5 ] || why="exit $rc (want 5)"
	[ -e r/skills/tool ] && why="$why; skill written"
	verdict "install-refuses-megagit-in-skill-$k" "${why#; }"
	rm -rf r/skills/tool
	(cd r && git checkout -q -- . 2>/dev/null)
done

# --- 8. a library arriving by sync is reported by audit and lint ----------
fresh_home
mkshared team >/dev/null
mg clone "file://$T/team.git" b >/dev/null 2>&1
evil_helper team-a
cp team-a/skills/helper/lib.so team-a/skills/helper/readme.txt
(cd team-a && git add -A && git commit -qm helper && git push -q origin main) >/dev/null 2>&1
(cd b && mg sync >/dev/null 2>&1)
out=$(cd b && mg audit 2>&1)
rc=$?
why=""
[ "$rc" = 10 ] || why="audit exit $rc (want 10)"
echo "$out" | grep -q 'readme.txt.*binary' || why="$why; audit does not name readme.txt as binary"
(cd b && mg lint >/dev/null 2>&1) && why="$why; lint exit 0"
verdict audit-reports-synced-binary "${why#; }"

# --- 9. a committed dynamic_k.gate naming a file outside the registry -----
fresh_home
mkreg r >/dev/null
why=""
for g in ../../../../../../../etc/passwd /etc/passwd skills/../../../../../../../etc/passwd; do
	cp r/.megagit/config.yaml "$T/cfg.bak"
	printf 'dynamic_k:\n  gate: %s\n' "$g" >>r/.megagit/config.yaml
	(cd r && git commit -qam gate) >/dev/null 2>&1
	out=$(cd r && mg route "my docker image is too large" 2>&1; hook_event "my docker image is too large" "g$RANDOM" "$T/r" | mg hook prompt --agent claude 2>/dev/null)
	echo "$out" | grep -q 'root:' && why="$why; gate $g: the file's content was printed"
	cp "$T/cfg.bak" r/.megagit/config.yaml
	(cd r && git commit -qam ungate) >/dev/null 2>&1
done
verdict committed-gate-outside-registry "${why#; }"

summary
