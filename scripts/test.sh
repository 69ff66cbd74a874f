#!/usr/bin/env bash
# The test command (README "Set up", and what CI runs): fetch the pinned ONNX
# Runtime library when npm is available, so the ONNX embedder's tests run the
# real runtime, then run every Go test.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${MEGAGIT_ONNXRUNTIME_LIB:-}" ]; then
  if command -v npm >/dev/null 2>&1; then
    MEGAGIT_ONNXRUNTIME_LIB=$(scripts/install-onnxruntime.sh)
    export MEGAGIT_ONNXRUNTIME_LIB
  else
    echo "scripts/test.sh: npm not found, so the ONNX Runtime tests are skipped" >&2
  fi
fi
go test ./... "$@"
