#!/usr/bin/python3
"""Make a MiniLM-shaped ONNX model with random weights, for timing only.

    /usr/bin/python3 scripts/make-bench-onnx.py DIR   # needs python3-onnx, python3-numpy

Writes DIR/model.onnx and DIR/tokenizer.json (all-MiniLM-L6-v2's, the asset
shipped in models/assets). The graph has all-MiniLM-L6-v2's shape (BERT,
6 layers, hidden 384, 12 heads, feed-forward 1536, 30522-token vocabulary,
float32: about 90 MB), so ONNX Runtime spends what it would spend on the real
model to load it and to embed a sentence, but its vectors mean nothing: use it
for NOTEBOOK.md's speed figures, never for ranking quality. Nothing here is
committed; no pretrained model can be downloaded on the development machines.
"""
import gzip
import math
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB, HIDDEN, HEADS, FFN, LAYERS, MAX_POS = 30522, 384, 12, 1536, 6, 512
SEED = 384


def init(rng, name, shape, scale):
    return numpy_helper.from_array((rng.randn(*shape) * scale).astype(np.float32), name=name)


def layer(i, x, rng, inits):
    """One post-norm BERT encoder layer on x [B,S,H]; returns its output name."""
    N, p = helper.make_node, "l%d_" % i
    dh = HIDDEN // HEADS
    s = 1 / math.sqrt(HIDDEN)
    nodes = []
    for n in "qkvo":
        inits += [init(rng, p + "w" + n, (HIDDEN, HIDDEN), s), init(rng, p + "b" + n, (HIDDEN,), 0.02)]
    for n in "qkv":
        nodes += [
            N("MatMul", [x, p + "w" + n], [p + n + "0"]),
            N("Add", [p + n + "0", p + "b" + n], [p + n + "1"]),
            N("Reshape", [p + n + "1", "heads_shape"], [p + n + "2"]),
        ]
    nodes += [
        N("Transpose", [p + "q2"], [p + "q"], perm=[0, 2, 1, 3]),
        N("Transpose", [p + "k2"], [p + "kt"], perm=[0, 2, 3, 1]),
        N("Transpose", [p + "v2"], [p + "v"], perm=[0, 2, 1, 3]),
        N("MatMul", [p + "q", p + "kt"], [p + "s0"]),
        N("Mul", [p + "s0", "head_scale"], [p + "s1"]),
        N("Add", [p + "s1", "mask_bias"], [p + "s2"]),
        N("Softmax", [p + "s2"], [p + "pr"], axis=-1),
        N("MatMul", [p + "pr", p + "v"], [p + "c0"]),
        N("Transpose", [p + "c0"], [p + "c1"], perm=[0, 2, 1, 3]),
        N("Reshape", [p + "c1", "hidden_shape"], [p + "c2"]),
        N("MatMul", [p + "c2", p + "wo"], [p + "o0"]),
        N("Add", [p + "o0", p + "bo"], [p + "o1"]),
        N("Add", [x, p + "o1"], [p + "r1"]),
        N("LayerNormalization", [p + "r1", "ln_g", "ln_b"], [p + "x1"], axis=-1, epsilon=1e-12),
        N("MatMul", [p + "x1", p + "w1"], [p + "f0"]),
        N("Add", [p + "f0", p + "b1"], [p + "f1"]),
        N("Mul", [p + "f1", "inv_sqrt2"], [p + "g0"]),
        N("Erf", [p + "g0"], [p + "g1"]),
        N("Add", [p + "g1", "one_f"], [p + "g2"]),
        N("Mul", [p + "f1", p + "g2"], [p + "g3"]),
        N("Mul", [p + "g3", "half"], [p + "g4"]),
        N("MatMul", [p + "g4", p + "w2"], [p + "f2"]),
        N("Add", [p + "f2", p + "b2"], [p + "f3"]),
        N("Add", [p + "x1", p + "f3"], [p + "r2"]),
        N("LayerNormalization", [p + "r2", "ln_g", "ln_b"], [p + "out"], axis=-1, epsilon=1e-12),
    ]
    inits += [init(rng, p + "w1", (HIDDEN, FFN), s), init(rng, p + "b1", (FFN,), 0.02),
              init(rng, p + "w2", (FFN, HIDDEN), 1 / math.sqrt(FFN)), init(rng, p + "b2", (HIDDEN,), 0.02)]
    return nodes, p + "out"


def build():
    rng = np.random.RandomState(SEED)
    consts = {
        "zero": np.array(0, dtype=np.int64), "one_i": np.array(1, dtype=np.int64),
        "one_f": np.array(1.0, dtype=np.float32), "neg_big": np.array(-10000.0, dtype=np.float32),
        "head_scale": np.array(1 / math.sqrt(HIDDEN // HEADS), dtype=np.float32),
        "half": np.array(0.5, dtype=np.float32), "inv_sqrt2": np.array(1 / math.sqrt(2), dtype=np.float32),
        "axes12": np.array([1, 2], dtype=np.int64),
        "heads_shape": np.array([0, 0, HEADS, HIDDEN // HEADS], dtype=np.int64),
        "hidden_shape": np.array([0, 0, HIDDEN], dtype=np.int64),
        "ln_g": np.ones(HIDDEN, dtype=np.float32), "ln_b": np.zeros(HIDDEN, dtype=np.float32),
    }
    inits = [numpy_helper.from_array(v, name=k) for k, v in consts.items()]
    inits += [init(rng, "word_emb", (VOCAB, HIDDEN), 0.05), init(rng, "pos_emb", (MAX_POS, HIDDEN), 0.02),
              init(rng, "type_emb", (2, HIDDEN), 0.02)]
    N = helper.make_node
    nodes = [
        N("Gather", ["word_emb", "input_ids"], ["we"]),
        N("Shape", ["input_ids"], ["shape"]),
        N("Gather", ["shape", "one_i"], ["seq"]),
        N("Range", ["zero", "seq", "one_i"], ["pos"]),
        N("Gather", ["pos_emb", "pos"], ["pe"]),
        N("Gather", ["type_emb", "token_type_ids"], ["te"]),
        N("Add", ["we", "pe"], ["e1"]),
        N("Add", ["e1", "te"], ["e2"]),
        N("LayerNormalization", ["e2", "ln_g", "ln_b"], ["x0"], axis=-1, epsilon=1e-12),
        # additive attention mask [B,1,1,S]: 0 for tokens, -10000 for padding
        N("Cast", ["attention_mask"], ["mf"], to=TensorProto.FLOAT),
        N("Unsqueeze", ["mf", "axes12"], ["m4"]),
        N("Sub", ["one_f", "m4"], ["inv"]),
        N("Mul", ["inv", "neg_big"], ["mask_bias"]),
    ]
    x = "x0"
    for i in range(LAYERS):
        more, x = layer(i, x, rng, inits)
        nodes += more
    nodes.append(N("Identity", [x], ["last_hidden_state"]))
    ints = lambda name: helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])
    graph = helper.make_graph(
        nodes, "bench_minilm_shape",
        [ints("input_ids"), ints("attention_mask"), ints("token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", HIDDEN])],
        initializer=inits,
    )
    model = helper.make_model(graph, producer_name="megagit scripts/make-bench-onnx.py",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    model.doc_string = "MiniLM-shaped random weights (seed %d): for timing only" % SEED
    onnx.checker.check_model(model)
    return model


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-bench-onnx.py DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    onnx.save(build(), os.path.join(out, "model.onnx"))
    here = os.path.dirname(os.path.abspath(__file__))
    with gzip.open(os.path.join(here, "..", "..", "models", "assets", "tokenizer.json.gz")) as src, \
            open(os.path.join(out, "tokenizer.json"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    print("wrote", out, os.path.getsize(os.path.join(out, "model.onnx")), "bytes")


if __name__ == "__main__":
    main()
