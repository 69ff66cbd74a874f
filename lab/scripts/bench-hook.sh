#!/usr/bin/env bash
# Measure megagit's per-prompt cost at several registry sizes (BENCHMARKS.md,
# "What does a prompt cost?"; lab/NOTEBOOK.md has the history).
#
#   scripts/bench-hook.sh --pairs FILE [--sizes "100 1000 10000"] [--runs N] [--keep DIR] [--rows LIST] [--onnx DIR]
#
# See usage() below. The Markdown table goes to stdout, progress to stderr.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/bench-hook.sh --pairs FILE [--sizes "100 1000 10000"] [--runs N] [--warmup N] [--keep DIR] [--rows LIST] [--onnx DIR]

Builds megagit, megagit-hook and a hello-world Go binary from this checkout
as releases are built (CGO_ENABLED=0 go build -trimpath -ldflags '-s -w'),
then for each size a registry of that many skills (one per pair of FILE, a
gzipped JSONL file of {"a": name, "b": description, ...} lines, such as
`megagit model train --pairs` reads), and times with hyperfine (p50):

  1. megagit-hook prompt --agent claude, default config (built-in model),
     warm, prompts back to back
  1s. the same, one prompt every 1.5 s (a person typing: each prompt comes
     after the once-a-second full check is due, which the hook leaves to
     the `megagit index --background` it starts after answering)
  2. the same with MEGAGIT_MODEL_ID=none (lexical only), back to back
  2s. the same, one prompt every 1.5 s
  3. the same answered by a running `megagit serve`
  4. the first prompt after a SKILL.md's description changed
  5. megagit route --json PROMPT, one process per call
  6. megagit verdict SKILL NEUTRAL (one commit per run)
  7. with --onnx DIR, last: the registry switched to the ONNX model folder
     DIR (`model use --dir`, `embed`), answered by the `megagit serve` the
     prompt hook started by itself (megagit built with cgo for it)
  7s. the same, one prompt every 1.5 s

each with its ratio to hello world timed right before it, peak RSS, and
for the hook rows who answered: megagit-hook itself, megagit (handed over)
or megagit serve. Prompts rotate over 20 texts: descriptions of pairs that
are not skills, and paraphrases of 4 of the registry's skills.

A second table counts, for one default-config hook call at each size made
1.5 s after the last (so the full check is due), the system calls of the
hook's own process (strace -f, leaving the background refresh it starts at
its execve): stat calls (newfstatat, statx, stat, lstat, fstatat64),
nanosleep and futex (idle processors spinning, the garbage collector's
workers), all of them; and the garbage-collection cycles it ran
(GODEBUG=gctrace=1). strace is optional: without it those columns say "–".

  --pairs FILE   the pairs (required)
  --sizes LIST   registry sizes (default "100 1000 10000")
  --runs N       timed runs per command (default 20)
  --warmup N     warm-up runs per command (default 3)
  --keep DIR     build the registries in DIR/registry-N and keep them
                 (DIR/registry-N must not exist yet)
  --rows LIST    the rows to time (default "1 1s 2 2s 3 4 5 6", and 7 7s
                 with --onnx)
  --onnx DIR     an ONNX model folder (model.onnx + tokenizer.json) for
                 rows 7 and 7s; needs a C compiler and ONNX Runtime
                 (scripts/install-onnxruntime.sh). The served rows' ANSWERED
                 column also gives the server's RSS once the rows ran.

Needs go, git and hyperfine. The Markdown table is printed on stdout,
progress on stderr.
EOF
}

pairs="" sizes="100 1000 10000" runs=20 warmup=3 keep="" rows_wanted="" onnx=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs=${2:?--pairs needs a file}; shift 2 ;;
    --pairs=*) pairs=${1#*=}; shift ;;
    --sizes) sizes=${2:?--sizes needs a list}; shift 2 ;;
    --sizes=*) sizes=${1#*=}; shift ;;
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --runs=*) runs=${1#*=}; shift ;;
    --warmup) warmup=${2:?--warmup needs a number}; shift 2 ;;
    --warmup=*) warmup=${1#*=}; shift ;;
    --keep) keep=${2:?--keep needs a folder}; shift 2 ;;
    --keep=*) keep=${1#*=}; shift ;;
    --rows) rows_wanted=${2:?--rows needs a list}; shift 2 ;;
    --rows=*) rows_wanted=${1#*=}; shift ;;
    --onnx) onnx=${2:?--onnx needs a folder}; shift 2 ;;
    --onnx=*) onnx=${1#*=}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench-hook: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$pairs" ] || { echo "bench-hook: --pairs FILE is required" >&2; usage >&2; exit 2; }
[ -r "$pairs" ] || { echo "bench-hook: cannot read $pairs" >&2; exit 2; }
if [ -n "$onnx" ]; then
  [ -r "$onnx/model.onnx" ] && [ -r "$onnx/tokenizer.json" ] || { echo "bench-hook: --onnx $onnx holds no model.onnx and tokenizer.json" >&2; exit 2; }
  onnx=$(cd "$onnx" && pwd)
  rows_wanted=${rows_wanted:-"1 1s 2 2s 3 4 5 6 7 7s"}
fi
rows_wanted=${rows_wanted:-"1 1s 2 2s 3 4 5 6"}
for n in $sizes; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "bench-hook: --sizes: $n is not a positive number" >&2; exit 2; }
done
[[ $runs =~ ^[1-9][0-9]*$ && $runs -ge 2 ]] || { echo "bench-hook: --runs must be a number >= 2" >&2; exit 2; }
[[ $warmup =~ ^[0-9]+$ ]] || { echo "bench-hook: --warmup must be a number" >&2; exit 2; }
for tool in go git hyperfine; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "bench-hook: $tool not found on PATH (hyperfine: https://github.com/sharkdp/hyperfine, e.g. apt-get install hyperfine)" >&2
    exit 2
  }
done

pairs=$(cd "$(dirname "$pairs")" && pwd)/$(basename "$pairs")
lab=$(cd "$(dirname "$0")/.." && pwd)
repo=$(dirname "$lab")
cd "$repo"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/megagit-bench.XXXXXX")
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  keep=$(cd "$keep" && pwd)
fi
serve_pid="" onnx_reg=""
cleanup() {
  if [ -n "$serve_pid" ]; then
    kill "$serve_pid" 2>/dev/null || true
    wait "$serve_pid" 2>/dev/null || true
  fi
  if [ -n "$onnx_reg" ]; then
    "$tmp/onnxbin/megagit" -C "$onnx_reg" serve --stop >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { echo "bench-hook: $*" >&2; }

# want ROW: whether --rows asks for ROW.
want() { [[ " $rows_wanted " == *" $1 "* ]]; }

# spaced: the pause before each call of a spaced row, longer than the once
# a second the hook's full check waits for.
spaced=1.5

# Commits need an identity; keep the user's if there is one.
if [ -z "$(git -C "$tmp" config user.email 2>/dev/null || true)" ]; then
  export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-megagit-bench} GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-bench@megagit.invalid}
  export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-megagit-bench} GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-bench@megagit.invalid}
fi
# The defaults, as a user has them: no MEGAGIT_* setting from the caller.
for v in $(env | sed -n 's/^\(MEGAGIT_[A-Z0-9_]*\)=.*/\1/p; s/^\(MEGA_EVAL_[A-Z0-9_]*\)=.*/\1/p'); do
  unset "$v"
done

say "building megagit, megagit-hook, the helper and hello world into $tmp/bin"
bin=$tmp/bin
release() { CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' "$@"; }
release -o "$bin/" ./cmd/megagit ./cmd/megagit-hook
(cd "$lab" && go build -o "$bin/benchreg" ./cmd/benchreg)
mkdir -p "$tmp/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello, world") }\n' > "$tmp/hello/main.go"
printf 'module hello\n\ngo 1.22\n' > "$tmp/hello/go.mod"
(cd "$tmp/hello" && GOWORK=off release -o "$bin/hello" .)
# A megagit-hook with no megagit next to it or on PATH: it fails where the
# real one hands the prompt over, which tells who answered.
mkdir -p "$tmp/probe" "$tmp/empty-path"
cp "$bin/megagit-hook" "$tmp/probe/megagit-hook"
if [ -n "$onnx" ]; then
  # The ONNX model needs cgo; megagit-hook (no model code) is the same one,
  # next to it, so the server it starts is this megagit.
  say "building megagit with cgo (ONNX) into $tmp/onnxbin"
  mkdir -p "$tmp/onnxbin"
  CGO_ENABLED=1 go build -trimpath -ldflags '-s -w' -o "$tmp/onnxbin/megagit" ./cmd/megagit
  cp "$bin/megagit-hook" "$tmp/onnxbin/megagit-hook"
fi

mg=$bin/megagit hookbin=$bin/megagit-hook helper=$bin/benchreg hello=$bin/hello
rows=$tmp/rows.tsv
calls=$tmp/calls.tsv
: > "$rows"
: > "$calls"

# bench N ROW LABEL CMD [hyperfine options...]: time hello world, then CMD
# (through bash, whose start hyperfine measures and subtracts; hello world
# needs no shell, so it runs without one and no subtraction blurs it), and
# add the table row. ANSWERED and RSS are set by the caller.
bench() {
  local n=$1 row=$2 label=$3 cmd=$4
  shift 4
  local json=$tmp/n$n-row$row.json hjson=$tmp/n$n-row$row-hello.json answered=$ANSWERED late0 late1
  say "$n skills, row $row: $label"
  hyperfine -N --style basic -w "$warmup" -r "$((runs < 50 ? 50 : runs))" --export-json "$hjson" -n "hello world" "$hello" >&2
  late0=$(late_count)
  hyperfine --shell=bash --style basic -w "$warmup" -r "$runs" --export-json "$json" "$@" -n "$label" "$cmd" >&2
  late1=$(late_count)
  if [ "$late1" -gt "$late0" ]; then
    answered="$answered; past the deadline, printed nothing: $((late1 - late0)) of $((warmup + runs)) calls"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$row" "$label" "$hjson" "$json" "${RSS:-}" "$answered" >> "$rows"
}

# late_count: how many times the registry's hook log says a prompt hook
# gave up at its deadline (hook.deadline_ms) and printed nothing.
late_count() {
  local c
  c=$(grep -c 'deadline exceeded' "$reg/.megagit/local/hook.log" 2>/dev/null || true)
  echo "${c:-0}"
}

# peak_rss PREPARE CMD...: the largest peak RSS (KiB) of 3 runs of CMD with
# the current prompt on stdin, PREPARE run before each.
peak_rss() {
  local prep=$1 max=0 r
  shift
  for _ in 1 2 3; do
    eval "$prep"
    r=$("$helper" rss -in "$prompts/cur.json" -- "$@" 2>/dev/null) || { echo ""; return; }
    [ "$r" -gt "$max" ] && max=$r
  done
  echo "$max"
}

# one_call N: the system calls and GC cycles of one default-config hook
# call at N skills, 1.5 s after the last call (the full check is due), as
# a row of the second table.
one_call() {
  local n=$1 st=$tmp/strace-$n.txt stats="–" sleeps="–" futex="–" total="–" gcs
  if command -v strace >/dev/null 2>&1; then
    eval "$next"
    sleep "$spaced"
    # --detach-on=execve: the background refresh the hook starts is a
    # process of its own, not the hook's cost.
    strace -f -c --detach-on=execve -o "$st" "$hookbin" prompt --agent claude < "$prompts/cur.json" > /dev/null 2>&1
    stats=$(awk '$NF ~ /^(newfstatat|statx|stat|lstat|fstatat64)$/ { n += ($4 ~ /^[0-9]+$/ ? $4 : 0) } END { print n + 0 }' "$st")
    sleeps=$(awk '$NF == "nanosleep" { print $4 }' "$st")
    futex=$(awk '$NF == "futex" { print $4 }' "$st")
    total=$(awk '$NF == "total" { print $4 }' "$st")
  fi
  eval "$next"
  sleep "$spaced"
  gcs=$(GODEBUG=gctrace=1 "$hookbin" prompt --agent claude < "$prompts/cur.json" 2>&1 >/dev/null | grep -c '^gc ' || true)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$stats" "${sleeps:-0}" "${futex:-0}" "$total" "$gcs" >> "$calls"
}

# who_answers PREPARE: run the probe hook on every prompt (PREPARE before
# each); prints "megagit-hook", "megagit (handed over)" or a mix, or
# "megagit serve" when the decision log says the server ranked them.
who_answers() {
  local prep=$1 handed=0 served=0 total=0 i err
  for i in $(seq 1 20); do
    eval "$prep"
    total=$((total + 1))
    err=$(PATH=$tmp/empty-path "$tmp/probe/megagit-hook" prompt --agent claude < "$prompts/cur.json" 2>&1 >/dev/null)
    if [[ $err == *"megagit is needed"* ]]; then
      handed=$((handed + 1))
    elif [[ $(tail -n 1 "$reg/.megagit/local/decisions.jsonl" 2>/dev/null) == *'"served":true'* ]]; then
      served=$((served + 1))
    fi
  done
  if [ "$served" -eq "$total" ]; then echo "megagit serve"
  elif [ "$handed" -eq "$total" ]; then echo "megagit (handed over)"
  elif [ "$handed" -eq 0 ] && [ "$served" -eq 0 ]; then echo "megagit-hook"
  else echo "handed over $handed/$total, served $served/$total"
  fi
}

for n in $sizes; do
  if [ -n "$keep" ]; then reg=$keep/registry-$n; else reg=$tmp/registry-$n; fi
  [ ! -e "$reg" ] || { echo "bench-hook: $reg exists; remove it or choose another --keep folder" >&2; exit 2; }
  prompts=$tmp/prompts-$n
  say "$n skills: building the registry in $reg"
  "$mg" init "$reg" >/dev/null
  read -r vskill edit < <("$helper" gen -pairs "$pairs" -n "$n" -registry "$reg" -prompts "$prompts")
  git -C "$reg" add -A
  git -C "$reg" commit -q -m "add $n skills"
  "$mg" -C "$reg" lint >/dev/null || { echo "bench-hook: megagit lint found problems in $reg" >&2; exit 1; }
  "$mg" -C "$reg" embed >&2
  [ -z "$(git -C "$reg" status --porcelain)" ] || { echo "bench-hook: $reg is not clean after embed" >&2; exit 1; }

  next="\"$helper\" prepare -prompts \"$prompts\""
  hook="\"$hookbin\" prompt --agent claude < \"$prompts/cur.json\""
  eval "$next"
  # Warm: the first call writes the hook's settings, the compiled index and
  # the skill vectors.
  "$mg" -C "$reg" hook prompt --agent claude < "$prompts/cur.json" >/dev/null
  # At thousands of skills the first build outlasts that call's deadline and
  # goes on in the background: wait for it, as the next prompts would.
  "$mg" -C "$reg" index >/dev/null

  # 1. Default config, back to back and spaced.
  ANSWERED=$(who_answers "$next")
  RSS=$(peak_rss "$next" "$hookbin" prompt --agent claude)
  want 1 && bench "$n" 1 "megagit-hook prompt, default config (built-in model)" "$hook" --prepare "$next"
  want 1s && bench "$n" 1s "megagit-hook prompt, default config, one every ${spaced} s" "$hook" --prepare "$next; sleep $spaced"
  one_call "$n"

  # 2. Lexical only, back to back and spaced.
  export MEGAGIT_MODEL_ID=none
  "$hookbin" prompt --agent claude < "$prompts/cur.json" >/dev/null
  ANSWERED=$(who_answers "$next")
  RSS=$(peak_rss "$next" "$hookbin" prompt --agent claude)
  want 2 && bench "$n" 2 "megagit-hook prompt, MEGAGIT_MODEL_ID=none" "$hook" --prepare "$next"
  want 2s && bench "$n" 2s "megagit-hook prompt, MEGAGIT_MODEL_ID=none, one every ${spaced} s" "$hook" --prepare "$next; sleep $spaced"
  unset MEGAGIT_MODEL_ID
  "$hookbin" prompt --agent claude < "$prompts/cur.json" >/dev/null

  # 3. A warm server (default config).
  if want 3; then
  "$mg" -C "$reg" serve 2> "$tmp/serve-$n.log" &
  serve_pid=$!
  for i in $(seq 1 300); do
    "$hookbin" prompt --agent claude < "$prompts/cur.json" >/dev/null
    [[ $(tail -n 1 "$reg/.megagit/local/decisions.jsonl") == *'"served":true'* ]] && break
    kill -0 "$serve_pid" 2>/dev/null || { echo "bench-hook: megagit serve exited:" >&2; cat "$tmp/serve-$n.log" >&2; exit 1; }
    [ "$i" -lt 300 ] || { echo "bench-hook: megagit serve did not answer within 30 s" >&2; exit 1; }
    sleep 0.1
  done
  ANSWERED=$(who_answers "$next")
  RSS=$(peak_rss "$next" "$hookbin" prompt --agent claude)
  bench "$n" 3 "megagit-hook prompt, warm megagit serve" "$hook" --prepare "$next"
  kill "$serve_pid"
  wait "$serve_pid" 2>/dev/null || true
  serve_pid=""
  fi

  # 4. First prompt after a skill's description changed.
  if want 4; then
  editprep="\"$helper\" prepare -prompts \"$prompts\" -edit \"$reg/$edit\""
  ANSWERED=$(who_answers "$editprep")
  RSS=$(peak_rss "$editprep" "$hookbin" prompt --agent claude)
  bench "$n" 4 "megagit-hook prompt after editing one SKILL.md" "$hook" --prepare "$editprep"
  git -C "$reg" checkout -q -- "$edit"
  "$hookbin" prompt --agent claude < "$prompts/cur.json" >/dev/null
  fi

  # 5. megagit route, one process per call (no server running).
  # cur.sh sets $1 to the prompt: no subshell in the timed command.
  if want 5; then
  route=". \"$prompts/cur.sh\" && exec \"$mg\" -C \"$reg\" route --json \"\$1\""
  ANSWERED="–"
  RSS=$(peak_rss ":" "$mg" -C "$reg" route --json "$(< "$prompts/cur.txt")")
  bench "$n" 5 "megagit route --json PROMPT" "$route" --prepare "$next"
  fi

  # 6. One verdict, one commit.
  if want 6; then
  verdict="\"$mg\" -C \"$reg\" verdict \"$vskill\" NEUTRAL --reason bench"
  RSS=$(peak_rss ":" "$mg" -C "$reg" verdict "$vskill" NEUTRAL --reason bench)
  bench "$n" 6 "megagit verdict SKILL NEUTRAL" "$verdict"
  [ -z "$(git -C "$reg" status --porcelain)" ] || say "warning: $reg is not clean after the verdicts"
  fi

  # 7. The ONNX model, answered by the server the hook starts by itself
  # (last: the registry keeps the model).
  if want 7 || want 7s; then
  omg=$tmp/onnxbin/megagit ohook="\"$tmp/onnxbin/megagit-hook\" prompt --agent claude < \"$prompts/cur.json\""
  say "$n skills: switching to the ONNX model $onnx and embedding the skills"
  "$omg" -C "$reg" model use --dir "$onnx" >&2
  "$omg" -C "$reg" embed >&2
  onnx_reg=$reg
  eval "$next"
  # The full binary saves the settings (model changed) and starts the server.
  "$omg" -C "$reg" hook prompt --agent claude < "$prompts/cur.json" >/dev/null
  for i in $(seq 1 600); do
    eval "$ohook" >/dev/null
    [[ $(tail -n 1 "$reg/.megagit/local/decisions.jsonl") == *'"served":true'* ]] && break
    [ "$i" -lt 600 ] || { echo "bench-hook: the megagit serve the hook started did not answer within 60 s:" >&2; cat "$reg/.megagit/local/serve.log" >&2; exit 1; }
    sleep 0.1
  done
  started=$(grep -c 'started megagit serve' "$reg/.megagit/local/hook.log" || true)
  spid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$reg/.megagit/local/serve.json")
  ANSWERED=$(who_answers "$next")
  RSS=$(peak_rss "$next" "$tmp/onnxbin/megagit-hook" prompt --agent claude)
  base=$ANSWERED
  want 7 && ANSWERED="$base (started by the hook)" && bench "$n" 7 "megagit-hook prompt, ONNX model, served" "$ohook" --prepare "$next"
  want 7s && ANSWERED="$base (started by the hook)" && bench "$n" 7s "megagit-hook prompt, ONNX model, served, one every ${spaced} s" "$ohook" --prepare "$next; sleep $spaced"
  srss=$(awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { printf "%.0f MB now, %.0f MB peak", r / 1024, h / 1024 }' "/proc/$spid/status")
  say "$n skills: the megagit serve the hook started (pid $spid, $started start(s)): RSS $srss"
  echo "$n	$spid	$started	$srss" >> "$tmp/serve-rss.tsv"
  "$omg" -C "$reg" serve --stop >&2
  onnx_reg=""
  fi
done

commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$repo" status --porcelain 2>/dev/null)" ] || commit="$commit (modified)"
echo "megagit $commit; $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc 2>/dev/null || echo '?') cores $(uname -m), $(go version | cut -d' ' -f3-); $(hyperfine --version); p50 of $runs runs after $warmup warm-ups; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo
"$helper" table "$rows"
echo
echo "One default-config hook call, ${spaced} s after the last (its own process; the background refresh it starts left out):"
echo
echo "| skills | stat calls | nanosleep | futex | system calls | GC cycles |"
echo "|---:|---:|---:|---:|---:|---:|"
while IFS=$'\t' read -r n stats sleeps futex total gcs; do
  echo "| $n | $stats | $sleeps | $futex | $total | $gcs |"
done < "$calls"
if [ -s "$tmp/serve-rss.tsv" ]; then
  echo
  echo "The megagit serve the prompt hook started for $(basename "$onnx"), after rows 7 and 7s:"
  echo
  echo "| skills | servers started | RSS |"
  echo "|---:|---:|---|"
  while IFS=$'\t' read -r n _ started srss; do
    echo "| $n | $started | $srss |"
  done < "$tmp/serve-rss.tsv"
fi
