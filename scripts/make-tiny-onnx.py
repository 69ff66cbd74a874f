#!/usr/bin/python3
"""Make the tiny BERT-like ONNX model that megagit's ONNX embedder tests run.

    /usr/bin/python3 scripts/make-tiny-onnx.py     # needs Debian's python3-onnx, python3-numpy

Writes models/testdata/tiny-bert/model.onnx and expected.json.

The graph has the shape of a BERT sentence-embedding export (inputs input_ids,
attention_mask, token_type_ids: int64 [batch, seq]; output last_hidden_state:
float32 [batch, seq, hidden]) with fixed-seed random weights: the vocabulary
is all-MiniLM-L6-v2's (30522 ids) so the real tokenizer.json drives it, but
hidden is 16 and there is one single-head encoder layer, so the file stays
about 1 MB (word embeddings stored as float16). Its vectors mean nothing:
tests use it for shapes, masking, pooling, normalisation and determinism.

expected.json holds, for three sentences with their reference token ids (the
ids of models/tokenizer_test.go, from an independent Python WordPiece),
the mean/cls/last-token pooled and L2-normalised vectors computed by a
separate float64 numpy forward pass of the same weights.
"""
import json
import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB, HIDDEN, FFN, MAX_POS, TYPES = 30522, 16, 64, 512, 2
EPS = 1e-12
SEED = 20240605

SENTENCES = [
    ("hello world", [101, 7592, 2088, 102]),
    ("naïve résumé", [101, 15743, 13746, 102]),
    ("Validate the Stripe webhook signature!",
     [101, 9398, 3686, 1996, 18247, 4773, 6806, 6559, 8085, 999, 102]),
]


def weights():
    rng = np.random.RandomState(SEED)
    w = {
        "word_emb": (rng.randn(VOCAB, HIDDEN) * 0.5).astype(np.float16),
        "pos_emb": (rng.randn(MAX_POS, HIDDEN) * 0.1).astype(np.float32),
        "type_emb": (rng.randn(TYPES, HIDDEN) * 0.1).astype(np.float32),
        "ln0_g": (1 + rng.randn(HIDDEN) * 0.1).astype(np.float32),
        "ln0_b": (rng.randn(HIDDEN) * 0.1).astype(np.float32),
    }
    s = 1 / math.sqrt(HIDDEN)
    for n in ("q", "k", "v", "o"):
        w["w" + n] = (rng.randn(HIDDEN, HIDDEN) * s).astype(np.float32)
        w["b" + n] = (rng.randn(HIDDEN) * 0.05).astype(np.float32)
    w["ln1_g"] = (1 + rng.randn(HIDDEN) * 0.1).astype(np.float32)
    w["ln1_b"] = (rng.randn(HIDDEN) * 0.1).astype(np.float32)
    w["w1"] = (rng.randn(HIDDEN, FFN) * s).astype(np.float32)
    w["b1"] = (rng.randn(FFN) * 0.05).astype(np.float32)
    w["w2"] = (rng.randn(FFN, HIDDEN) / math.sqrt(FFN)).astype(np.float32)
    w["b2"] = (rng.randn(HIDDEN) * 0.05).astype(np.float32)
    w["ln2_g"] = (1 + rng.randn(HIDDEN) * 0.1).astype(np.float32)
    w["ln2_b"] = (rng.randn(HIDDEN) * 0.1).astype(np.float32)
    return w


def build(w):
    consts = dict(w)
    consts["zero"] = np.array(0, dtype=np.int64)
    consts["one_i"] = np.array(1, dtype=np.int64)
    consts["one_f"] = np.array(1.0, dtype=np.float32)
    consts["neg_big"] = np.array(-10000.0, dtype=np.float32)
    consts["scale"] = np.array(1 / math.sqrt(HIDDEN), dtype=np.float32)
    consts["half"] = np.array(0.5, dtype=np.float32)
    consts["inv_sqrt2"] = np.array(1 / math.sqrt(2), dtype=np.float32)
    consts["axes1"] = np.array([1], dtype=np.int64)
    inits = [numpy_helper.from_array(v, name=k) for k, v in consts.items()]

    N = helper.make_node
    nodes = [
        N("Cast", ["word_emb"], ["word_emb_f"], to=TensorProto.FLOAT),
        N("Gather", ["word_emb_f", "input_ids"], ["we"]),
        N("Shape", ["input_ids"], ["shape"]),
        N("Gather", ["shape", "one_i"], ["seq"]),
        N("Range", ["zero", "seq", "one_i"], ["pos"]),
        N("Gather", ["pos_emb", "pos"], ["pe"]),
        N("Gather", ["type_emb", "token_type_ids"], ["te"]),
        N("Add", ["we", "pe"], ["e1"]),
        N("Add", ["e1", "te"], ["e2"]),
        N("LayerNormalization", ["e2", "ln0_g", "ln0_b"], ["x0"], axis=-1, epsilon=EPS),
        # additive attention mask: 0 for tokens, -10000 for padding, [B,1,S]
        N("Cast", ["attention_mask"], ["mf"], to=TensorProto.FLOAT),
        N("Unsqueeze", ["mf", "axes1"], ["m3"]),
        N("Sub", ["one_f", "m3"], ["inv"]),
        N("Mul", ["inv", "neg_big"], ["bias"]),
    ]
    for n in ("q", "k", "v"):
        nodes += [N("MatMul", ["x0", "w" + n], [n + "0"]), N("Add", [n + "0", "b" + n], [n])]
    nodes += [
        N("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        N("MatMul", ["q", "kt"], ["s0"]),
        N("Mul", ["s0", "scale"], ["s1"]),
        N("Add", ["s1", "bias"], ["s2"]),
        N("Softmax", ["s2"], ["p"], axis=-1),
        N("MatMul", ["p", "v"], ["ctx"]),
        N("MatMul", ["ctx", "wo"], ["o0"]),
        N("Add", ["o0", "bo"], ["o1"]),
        N("Add", ["x0", "o1"], ["r1"]),
        N("LayerNormalization", ["r1", "ln1_g", "ln1_b"], ["x1"], axis=-1, epsilon=EPS),
        N("MatMul", ["x1", "w1"], ["f0"]),
        N("Add", ["f0", "b1"], ["f1"]),
        # exact GELU: 0.5 x (1 + erf(x / sqrt 2))
        N("Mul", ["f1", "inv_sqrt2"], ["g0"]),
        N("Erf", ["g0"], ["g1"]),
        N("Add", ["g1", "one_f"], ["g2"]),
        N("Mul", ["f1", "g2"], ["g3"]),
        N("Mul", ["g3", "half"], ["g4"]),
        N("MatMul", ["g4", "w2"], ["f2"]),
        N("Add", ["f2", "b2"], ["f3"]),
        N("Add", ["x1", "f3"], ["r2"]),
        N("LayerNormalization", ["r2", "ln2_g", "ln2_b"], ["last_hidden_state"], axis=-1, epsilon=EPS),
    ]
    ints = lambda name: helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])
    graph = helper.make_graph(
        nodes, "tiny_bert",
        [ints("input_ids"), ints("attention_mask"), ints("token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", HIDDEN])],
        initializer=inits,
    )
    model = helper.make_model(graph, producer_name="megagit scripts/make-tiny-onnx.py",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    model.doc_string = "tiny BERT-like test model with random weights (seed %d); not a real embedder" % SEED
    onnx.checker.check_model(model)
    return model


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS) * g + b


def forward(w, ids):
    """float64 reference of the graph for one unpadded sentence: [S, H]."""
    f = {k: v.astype(np.float64) for k, v in w.items()}
    ids = np.array(ids)
    x = f["word_emb"][ids] + f["pos_emb"][: len(ids)] + f["type_emb"][0]
    x = layer_norm(x, f["ln0_g"], f["ln0_b"])
    q, k, v = (x @ f["w" + n] + f["b" + n] for n in "qkv")
    s = q @ k.T / math.sqrt(HIDDEN)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    x = layer_norm(x + (p @ v) @ f["wo"] + f["bo"], f["ln1_g"], f["ln1_b"])
    h = x @ f["w1"] + f["b1"]
    h = 0.5 * h * (1 + np.vectorize(math.erf)(h / math.sqrt(2)))
    return layer_norm(x + h @ f["w2"] + f["b2"], f["ln2_g"], f["ln2_b"])


def unit(v):
    return (v / np.linalg.norm(v)).tolist()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "models", "testdata", "tiny-bert")
    os.makedirs(out, exist_ok=True)
    w = weights()
    onnx.save(build(w), os.path.join(out, "model.onnx"))
    cases = []
    for text, ids in SENTENCES:
        h = forward(w, ids)
        cases.append({"text": text, "ids": ids, "mean": unit(h.mean(0)), "cls": unit(h[0]), "last": unit(h[-1])})
    with open(os.path.join(out, "expected.json"), "w") as fh:
        json.dump({"hidden": HIDDEN, "seed": SEED, "sentences": cases}, fh, indent=1)
        fh.write("\n")
    print("wrote", out, os.path.getsize(os.path.join(out, "model.onnx")), "bytes")


if __name__ == "__main__":
    main()
