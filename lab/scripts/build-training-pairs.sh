#!/usr/bin/env bash
# Rebuild the training pairs of the built-in model (NOTEBOOK.md, "Toward
# megagit-static-v2"; the model's README gives the exact command).
#
#   scripts/build-training-pairs.sh --packages FILE --out FILE.jsonl.gz [--seed N]
#
# See usage() below. Per-source counts go to stdout, the sha256 last.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/build-training-pairs.sh --packages FILE --out FILE.jsonl.gz [--seed N]
       [--wordnet DIR] [--man-packages "manpages manpages-dev"]

Writes {"a", "b", "source"} JSONL.gz pairs (what `megagit model train --pairs`
reads) from:

  --packages FILE   package name <-> summary pairs (JSONL[.gz], e.g. the PyPI and
                    npm pairs megagit-static-v1 was trained on)
  --wordnet DIR     WordNet 3.0's data.* files: synonyms within a synset and
                    lemma <-> gloss (default /usr/share/wordnet, Debian's
                    wordnet-base; "" to skip)
  --man-packages P  the NAME lines ("command - what it does") of the man pages
                    the Debian packages P install (default "manpages
                    manpages-dev"; "" to skip)

Deduplicated (case-insensitive a and b), shuffled with --seed (default 1), so
the same inputs give the same bytes. Needs go, dpkg and, for the defaults:
  apt-get install -y wordnet-base manpages manpages-dev
USAGE
}

packages="" out="" seed=1 wordnet=/usr/share/wordnet man_packages="manpages manpages-dev"
while [ $# -gt 0 ]; do
  case "$1" in
    --packages) packages="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --wordnet) wordnet="$2"; shift 2 ;;
    --man-packages) man_packages="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
if [ -z "$packages" ] || [ -z "$out" ]; then
  usage >&2
  exit 2
fi

root="$(cd "$(dirname "$0")/.." && pwd)"
list="$(mktemp)"
trap 'rm -f "$list"' EXIT
if [ -n "$man_packages" ]; then
  for p in $man_packages; do
    echo "$p $(dpkg-query -W -f='${Version}' "$p")" >&2
  done
  # shellcheck disable=SC2086 # one argument per package
  dpkg -L $man_packages | grep -E '^/usr/share/man/man[1-8]/[^/]+\.gz$' | LC_ALL=C sort -u >"$list"
fi
if [ -n "$wordnet" ]; then
  echo "wordnet: $wordnet (wordnet-base $(dpkg-query -W -f='${Version}' wordnet-base 2>/dev/null || echo '?'))" >&2
fi
man_arg=""
[ -n "$man_packages" ] && man_arg="$list"
(cd "$root" && go run ./cmd/trainpairs -packages "$(realpath "$packages")" -wordnet "$wordnet" \
  -man-list "$man_arg" -out "$(realpath -m "$out")" -seed "$seed")
sha256sum "$out"
