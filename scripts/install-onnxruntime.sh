#!/usr/bin/env bash
# Installs the ONNX Runtime shared library that megagit's ONNX embedder loads
# at run time (github.com/yalue/onnxruntime_go v1.27.0 needs ONNX Runtime >= 1.24).
#
# ONNX Runtime is not packaged by Debian 12; the npm package onnxruntime-node
# carries the official MIT-licensed builds. `npm pack` only downloads the
# tarball (npm checks its registry integrity hash) and runs no install script;
# we then check the tarball's and the library's pinned sha256 and copy the
# library into a user-level folder.
#
#   scripts/install-onnxruntime.sh        # prints the library path
#
# Destination: ${XDG_DATA_HOME:-$HOME/.local/share}/megagit/onnxruntime — where
# megagit looks when neither the config key model.onnxruntime nor the env
# MEGAGIT_ONNXRUNTIME_LIB names a library (embedcache.DefaultRuntimePath). Idempotent: a library already in
# place with the pinned sha256 is kept and nothing is downloaded.
# Needs: npm, tar, sha256sum (or shasum). Progress goes to stderr, the path to stdout.
set -euo pipefail

ORT_VERSION=1.24.1
ORT_TGZ_SHA256=57181cf6e6e711b155c5b942d591fd63ded0b5de5c4922d51fd994e7f6ac2772

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64 | Linux/amd64)
    member=package/bin/napi-v6/linux/x64/libonnxruntime.so.1
    name=libonnxruntime.so.1
    want=53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4 ;;
  Linux/aarch64 | Linux/arm64)
    member=package/bin/napi-v6/linux/arm64/libonnxruntime.so.1
    name=libonnxruntime.so.1
    want=7954e8bdedb497f830c6a679e818d98399b7f4d81ade1126c3e0be74d28111ab ;;
  Darwin/arm64)
    member=package/bin/napi-v6/darwin/arm64/libonnxruntime.1.24.1.dylib
    name=libonnxruntime.dylib
    want=7ad6507ad64d3b02aebfae6380c024ff188939cd8a7a493ec18028e034c8275c ;;
  *)
    echo "install-onnxruntime: no pinned ONNX Runtime $ORT_VERSION build for $(uname -s)/$(uname -m)" >&2
    exit 1 ;;
esac

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

data_home=${XDG_DATA_HOME:-}
if [ -z "$data_home" ] || [ "${data_home#/}" = "$data_home" ]; then
  data_home="$HOME/.local/share" # XDG: a relative XDG_DATA_HOME is ignored
fi
dest=$data_home/megagit/onnxruntime
lib="$dest/$name"

if [ -f "$lib" ] && [ "$(sha256 "$lib")" = "$want" ]; then
  echo "$lib"
  exit 0
fi

command -v npm >/dev/null 2>&1 || { echo "install-onnxruntime: npm is needed (apt-get install npm)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "install-onnxruntime: downloading onnxruntime-node@$ORT_VERSION (about 85 MB) with npm pack" >&2
(cd "$tmp" && npm pack --silent "onnxruntime-node@$ORT_VERSION" >/dev/null)
tgz="$tmp/onnxruntime-node-$ORT_VERSION.tgz"
got=$(sha256 "$tgz")
if [ "$got" != "$ORT_TGZ_SHA256" ]; then
  echo "install-onnxruntime: sha256 of onnxruntime-node-$ORT_VERSION.tgz is $got, want $ORT_TGZ_SHA256" >&2
  exit 1
fi
tar -xzf "$tgz" -C "$tmp" "$member"
got=$(sha256 "$tmp/$member")
if [ "$got" != "$want" ]; then
  echo "install-onnxruntime: sha256 of $member is $got, want $want" >&2
  exit 1
fi

# Atomic install: copy next to the target, then rename over it.
mkdir -p "$dest"
cp "$tmp/$member" "$dest/.$name.tmp.$$"
chmod 0644 "$dest/.$name.tmp.$$"
mv -f "$dest/.$name.tmp.$$" "$lib"
echo "install-onnxruntime: installed ONNX Runtime $ORT_VERSION" >&2
echo "$lib"
