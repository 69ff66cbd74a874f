#!/usr/bin/env bash
# g03-secrets: a token in a URL is never printed, stored in skills.lock or
# in a commit message (issue 38 finding 3): as the user name (short,
# JWT-style with dots), as user:password, in the query string, percent-
# encoded, in upper-case schemes, in a lock merged from a teammate, in
# remotes; in every command's output, --json, errors (git's own), the lock
# and the commits sync pushes.
. "$(dirname "$0")/lib.sh"

fresh_home
mkdir srv
mksource work/src pdf-tables sql-lint >/dev/null
git clone -q --bare work/src srv/src.git
start_http "$T/srv"
H="127.0.0.1:$HTTP_PORT"
mkshared team >/dev/null

# leak FILE... : the secret markers (SEKRET, a JWT part) found in the files.
leak() { grep -ho -E 'SEKRET[A-Za-z0-9_]*|eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+|p%40ssw0rd|ghp_[A-Za-z0-9]+|tok_[A-Z0-9]{6,}' "$@" 2>/dev/null | sort -u | tr '\n' ' '; }

# try_install NAME URL: install pdf-tables from URL into a fresh registry
# (text and --json), update it, check it; every output, the lock and the
# log must hold no secret.
try_install() {
	local name=$1 url=$2 d="$T/reg-$1" o="$T/out-$1"
	mkreg "$d" >/dev/null
	(cd "$d" && tmo 60 mg skill install "$url" pdf-tables) >"$o.install" 2>&1
	local rc=$?
	(cd "$d" && tmo 60 mg skill install "$url" sql-lint --json) >"$o.json" 2>&1
	(cd "$d" && tmo 60 mg skill update) >"$o.update" 2>&1
	(cd "$d" && tmo 60 mg skill update --check --json) >"$o.check" 2>&1
	(cd "$d" && mg skill list --json && mg skill show pdf-tables && mg doctor --offline && mg log) >"$o.show" 2>&1
	git -C "$d" log --format=%B >"$o.log" 2>&1
	local l
	l=$(leak "$o".* "$d/.megagit/skills.lock")
	local why=""
	[ -n "$l" ] && why="secret shown or stored: $l(in $(grep -l -E 'SEKRET|eyJ|p%40ss|ghp_|tok_[A-Z0-9]{6}' "$o".* "$d/.megagit/skills.lock" 2>/dev/null | sed "s|$T/||" | tr '\n' ' '))"
	raw_ctl "$o.install" && why="$why; raw control byte in install output"
	verdict "secret-$name" "$why"
	LAST_RC=$rc
}

try_install user-short "http://tok_ABCDEF123456@$H/src.git"
try_install user-jwt "http://eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.SEKRETsig@$H/src.git"
try_install user-pass "http://bob:SEKRETpw1@$H/src.git"
try_install oauth-basic "http://SEKRETtok2:x-oauth-basic@$H/src.git"
try_install x-access-token "http://x-access-token:ghp_SEKRET3abcdefghijklmnop@$H/src.git"
try_install pct-encoded "http://tok%5FSEKRET4@$H/src.git"
try_install pct-password "http://bob:p%40ssw0rd@$H/src.git"
try_install upper-scheme "HTTP://SEKRET5tok@$H/src.git"
try_install user-only-empty-pass "http://SEKRET6tok:@$H/src.git"
for q in access_token private_token token key sig; do
	try_install "query-$q" "http://$H/src.git?$q=SEKRET7$q"
done
# Credential parameters beyond the documented names ("and the like"):
# every one is an install whose output must not show it.
leaked=""
for q in password api_key client_secret X-Amz-Signature AccessToken access-token refresh_token job_token X-Goog-Signature; do
	d=$(mktemp -d "$T/like-XXXX")
	mkreg "$d/r" >/dev/null
	(cd "$d/r" && tmo 30 mg skill install "http://$H/src.git?$q=SEKRETlike" pdf-tables; tmo 30 mg skill install "http://$H/src.git?$q=SEKRETlike" pdf-tables --json) >"$d/out" 2>&1
	grep -q SEKRETlike "$d/out" "$d/r/.megagit/skills.lock" 2>/dev/null && leaked="$leaked $q"
done
verdict secret-query-credential-like-names "${leaked:+shown in install output for ?NAME=... with NAME in:$leaked}"
try_install query-second-param "http://$H/src.git?ref=x&token=SEKRET9"
try_install file-url-user "file://SEKRET11tok@localhost$T/srv/src.git"
try_install git-proto-user "git://SEKRET12tok@127.0.0.1:1/src.git"
try_install ssh-password "ssh://git:SEKRET13pw@127.0.0.1:1/src.git"

# Errors of an unreachable token URL (connection refused) and a 404.
for u in "http://tok_SEKRET14AB@127.0.0.1:1/src.git" "http://tok_SEKRET15AB@$H/missing.git" "http://u:SEKRET16@$H/src.git?token=SEKRET17"; do
	d=$(mktemp -d "$T/err-XXXX")
	mkreg "$d/r" >/dev/null
	(cd "$d/r" && tmo 30 mg skill install "$u" pdf-tables; tmo 30 mg skill install "$u" --all --json; cd .. && tmo 30 mg clone "$u" c) >"$d/out" 2>&1
	l=$(leak "$d/out")
	verdict "secret-in-error-$(echo "$u" | grep -o 'SEKRET[0-9]*' | head -1)" "${l:+error output holds $l}"
done

# Remotes: remote add, remote --json, sync, doctor (online), clone.
fresh_home
git init -q --bare srv/team.git 2>/dev/null || { mkdir -p srv && git init -q --bare srv/team.git; }
start_http "$T/srv"
H="127.0.0.1:$HTTP_PORT"
mkreg a >/dev/null
(cd a && mg remote add origin "http://tok_SEKRET20AB@$H/team.git" &&
	mg remote && mg remote --json && mg sync && mg sync --json && mg doctor && mg doctor --json) >out.remote 2>&1
(tmo 60 mg clone "http://bob:SEKRET21@$H/team.git" c2 && cd c2 && mg verdict docker-slim HELPFUL --reason ok && mg sync && mg remote --json) >>out.remote 2>&1
git -C a log --all --format=%B >out.remote.log
l=$(leak out.remote out.remote.log)
verdict secret-remote-sync-doctor-clone "${l:+shown: $l}"
stop_pid "$HTTP_PID"

# A teammate commits a lock whose source holds a token; after sync the
# commands that read it show none, and the next write removes it.
fresh_home
mkdir srv
mksource work/src pdf-tables >/dev/null
git clone -q --bare work/src srv/src.git
start_http "$T/srv"
H="127.0.0.1:$HTTP_PORT"
mkshared team >/dev/null
(cd team-a && mg skill install "http://$H/src.git" pdf-tables) >/dev/null 2>&1
sed -i "s#http://$H/src.git#http://tok_SEKRET30AB:SEKRET31@$H/src.git#" team-a/.megagit/skills.lock
(cd team-a && git commit -qam "lock by hand" && git push -q origin main) >/dev/null 2>&1
mg clone "file://$T/team.git" b >out.clone 2>&1
echo "update from upstream" >>work/src/skills/pdf-tables/SKILL.md && git -C work/src commit -qam v2 && git -C work/src push -q "$T/srv/src.git" HEAD:main 2>/dev/null || (cd work/src && git push -q "$T/srv/src.git" HEAD:master)
(cd b && mg skill list --json; mg skill show pdf-tables; mg skill update --check; mg skill update --check --json; mg doctor --offline; mg doctor --json --offline; mg skill update; mg skill update --json) >out.teammate 2>&1
l=$(leak out.clone out.teammate)
verdict secret-teammate-lock-printed "${l:+shown: $l}"
git -C b log -1 --format=%s | grep -q 'lock by hand' && skip_w=1 || skip_w=0
l=$(leak b/.megagit/skills.lock)
if [ "$skip_w" = 1 ]; then
	verdict secret-teammate-lock-rewritten "${l:+skill update made no commit, and the lock still holds $l}"
else
	verdict secret-teammate-lock-rewritten "${l:+after megagit rewrote the lock it still holds $l}"
fi
stop_pid "$HTTP_PID"

summary
