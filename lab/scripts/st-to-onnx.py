#!/usr/bin/env python3
"""Export a sentence-transformers BERT or MPNet checkpoint to the ONNX folder megagit loads.

    python st-to-onnx.py --src DIR --out DIR [--check-int8 FILE]

DIR holds the checkpoint as sentence-transformers saves it: config.json,
model.safetensors and tokenizer.json. The output folder gets model.onnx
(float32, opset 17; inputs input_ids, attention_mask and, for BERT,
token_type_ids, all int64 [batch, seq]; output last_hidden_state float32
[batch, seq, hidden]) and a copy of tokenizer.json: what `megagit model use
--dir` and MEGAGIT_MODEL_DIR read.

No torch: the graph is built node by node with the `onnx` package (the
graph of scripts/make-tiny-onnx.py, grown to the real shape: N layers,
multi-head attention, and MPNet's relative position bias) and the real
weights are loaded into it. The export is then checked against an
independent float64 numpy forward pass written from the Hugging Face
modelling code (BertModel, MPNetModel), on a padded batch of sentences run
through onnxruntime: the largest difference of any unmasked token state must
stay below 1e-4, and so must that of the mean-pooled, normalised vectors.
--check-int8 also compares the pooled vectors with another export of the same
model (the cosines are printed; an int8 file stays near 0.99).

Needs numpy, onnx, onnxruntime, safetensors and tokenizers (a venv:
lab/scripts/fetch-models.sh makes one).
"""
import argparse
import json
import math
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MAXREL = 511  # relative distances -511..511: sequences up to 512 tokens

SENTENCES = [
    "hello world",
    "Validate the Stripe webhook signature before trusting the payload!",
    "my docker build is slow and the cache never hits",
    "naïve résumé of a café",
    "rename this variable",
    "Represent this sentence for searching relevant passages: how do I squash the last three commits into one before I open the pull request?",
]


def load(src):
    from safetensors.numpy import load_file

    cfg = json.load(open(os.path.join(src, "config.json")))
    w = load_file(os.path.join(src, "model.safetensors"))
    # Some checkpoints prefix every tensor with the model's name.
    for pre in ("bert.", "mpnet."):
        if all(k.startswith(pre) for k in w):
            w = {k[len(pre):]: v for k, v in w.items()}
    return cfg, {k: v.astype(np.float32) if v.dtype != np.int64 else v for k, v in w.items()}


def mpnet_bucket(rel, num_buckets=32, max_distance=128):
    """MPNetEncoder.relative_position_bucket, in float32 as torch computes it."""
    ret = np.zeros_like(rel)
    n = -rel
    num_buckets //= 2
    ret += (n < 0).astype(np.int64) * num_buckets
    n = np.abs(n)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    with np.errstate(divide="ignore"):
        large = (np.log(n.astype(np.float32) / np.float32(max_exact)) / np.float32(math.log(max_distance / max_exact))
                 * np.float32(num_buckets - max_exact))
    large = max_exact + np.where(np.isfinite(large), large, 0).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return ret + np.where(is_small, n, large)


def names(arch, i):
    p = "encoder.layer.%d." % i
    if arch == "bert":
        return dict(q=p + "attention.self.query", k=p + "attention.self.key", v=p + "attention.self.value",
                    o=p + "attention.output.dense", ln1=p + "attention.output.LayerNorm",
                    f1=p + "intermediate.dense", f2=p + "output.dense", ln2=p + "output.LayerNorm")
    return dict(q=p + "attention.attn.q", k=p + "attention.attn.k", v=p + "attention.attn.v",
                o=p + "attention.attn.o", ln1=p + "attention.LayerNorm",
                f1=p + "intermediate.dense", f2=p + "output.dense", ln2=p + "output.LayerNorm")


def build(arch, cfg, w):
    H, nh, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    dh, eps = H // nh, cfg["layer_norm_eps"]
    inits, nodes = {}, []
    N = helper.make_node

    def const(name, arr):
        inits[name] = numpy_helper.from_array(np.asarray(arr), name=name)
        return name

    const("zero", np.array(0, np.int64))
    const("one_i", np.array(1, np.int64))
    const("one_f", np.array(1.0, np.float32))
    const("neg_big", np.array(-1e9, np.float32))  # masked scores: exp underflows to exactly 0
    const("scale", np.array(1 / math.sqrt(dh), np.float32))
    const("half", np.array(0.5, np.float32))
    const("inv_sqrt2", np.array(1 / math.sqrt(2), np.float32))
    const("heads_shape", np.array([0, 0, nh, dh], np.int64))
    const("merge_shape", np.array([0, 0, H], np.int64))
    const("axes12", np.array([1, 2], np.int64))
    const("word", w["embeddings.word_embeddings.weight"])
    const("pos_tab", w["embeddings.position_embeddings.weight"])
    const("ln0_g", w["embeddings.LayerNorm.weight"])
    const("ln0_b", w["embeddings.LayerNorm.bias"])

    nodes += [
        N("Gather", ["word", "input_ids"], ["we"]),
        N("Shape", ["input_ids"], ["shape"]),
        N("Gather", ["shape", "one_i"], ["seq"]),
        N("Range", ["zero", "seq", "one_i"], ["ar"]),
    ]
    if arch == "bert":
        const("type_tab", w["embeddings.token_type_embeddings.weight"])
        nodes += [
            N("Gather", ["pos_tab", "ar"], ["pe"]),
            N("Gather", ["type_tab", "token_type_ids"], ["te"]),
            N("Add", ["we", "pe"], ["e1"]),
            N("Add", ["e1", "te"], ["e2"]),
        ]
    else:
        # create_position_ids_from_input_ids: cumsum over non-padding tokens, + padding_idx
        pad = cfg.get("pad_token_id", 1)
        const("pad_id", np.array(pad, np.int64))
        const("pad_pos", np.array(pad, np.int64))
        nodes += [
            N("Equal", ["input_ids", "pad_id"], ["is_pad"]),
            N("Not", ["is_pad"], ["not_pad"]),
            N("Cast", ["not_pad"], ["np_i"], to=TensorProto.INT64),
            N("CumSum", ["np_i", "one_i"], ["cs"]),
            N("Mul", ["cs", "np_i"], ["cs2"]),
            N("Add", ["cs2", "pad_pos"], ["pos_ids"]),
            N("Gather", ["pos_tab", "pos_ids"], ["pe"]),
            N("Add", ["we", "pe"], ["e2"]),
        ]
        # relative position bias, the same for every layer: table[d + MAXREL] = weight[bucket(d)]
        rel = np.arange(-MAXREL, MAXREL + 1, dtype=np.int64)
        table = w["encoder.relative_attention_bias.weight"][mpnet_bucket(rel, cfg.get("relative_attention_num_buckets", 32))]
        const("rel_tab", table.astype(np.float32))  # [2*MAXREL+1, nh]
        const("maxrel", np.array(MAXREL, np.int64))
        const("ax0", np.array([0], np.int64))
        const("ax1", np.array([1], np.int64))
        nodes += [
            N("Unsqueeze", ["ar", "ax0"], ["mem"]),  # [1,S] memory (key) position
            N("Unsqueeze", ["ar", "ax1"], ["ctxp"]),  # [S,1] context (query) position
            N("Sub", ["mem", "ctxp"], ["relpos"]),  # [S,S] = memory - context
            N("Add", ["relpos", "maxrel"], ["relidx"]),
            N("Gather", ["rel_tab", "relidx"], ["rb0"]),  # [S,S,nh]
            N("Transpose", ["rb0"], ["rb1"], perm=[2, 0, 1]),  # [nh,S,S]
            N("Unsqueeze", ["rb1", "ax0"], ["relbias"]),  # [1,nh,S,S]
        ]
    nodes += [
        N("LayerNormalization", ["e2", "ln0_g", "ln0_b"], ["x0"], axis=-1, epsilon=eps),
        N("Cast", ["attention_mask"], ["mf"], to=TensorProto.FLOAT),
        N("Unsqueeze", ["mf", "axes12"], ["m4"]),  # [B,1,1,S]
        N("Sub", ["one_f", "m4"], ["inv"]),
        N("Mul", ["inv", "neg_big"], ["maskbias"]),
    ]
    x = "x0"
    for i in range(L):
        n = names(arch, i)
        t = "l%d_" % i
        for part in ("q", "k", "v", "o", "f1", "f2"):
            const(t + part + "_w", w[n[part] + ".weight"].T.copy())
            const(t + part + "_b", w[n[part] + ".bias"])
        for part in ("ln1", "ln2"):
            const(t + part + "_g", w[n[part] + ".weight"])
            const(t + part + "_b", w[n[part] + ".bias"])
        for part in ("q", "k", "v"):
            nodes += [
                N("MatMul", [x, t + part + "_w"], [t + part + "0"]),
                N("Add", [t + part + "0", t + part + "_b"], [t + part + "1"]),
                N("Reshape", [t + part + "1", "heads_shape"], [t + part + "2"]),
            ]
        nodes += [
            N("Transpose", [t + "q2"], [t + "qh"], perm=[0, 2, 1, 3]),  # [B,nh,S,dh]
            N("Transpose", [t + "k2"], [t + "kt"], perm=[0, 2, 3, 1]),  # [B,nh,dh,S]
            N("Transpose", [t + "v2"], [t + "vh"], perm=[0, 2, 1, 3]),
            N("MatMul", [t + "qh", t + "kt"], [t + "s0"]),
            N("Mul", [t + "s0", "scale"], [t + "s1"]),
        ]
        s = t + "s1"
        if arch == "mpnet":
            nodes.append(N("Add", [s, "relbias"], [t + "s1r"]))
            s = t + "s1r"
        nodes += [
            N("Add", [s, "maskbias"], [t + "s2"]),
            N("Softmax", [t + "s2"], [t + "p"], axis=-1),
            N("MatMul", [t + "p", t + "vh"], [t + "c0"]),  # [B,nh,S,dh]
            N("Transpose", [t + "c0"], [t + "c1"], perm=[0, 2, 1, 3]),
            N("Reshape", [t + "c1", "merge_shape"], [t + "c2"]),
            N("MatMul", [t + "c2", t + "o_w"], [t + "o0"]),
            N("Add", [t + "o0", t + "o_b"], [t + "o1"]),
            N("Add", [x, t + "o1"], [t + "r1"]),
            N("LayerNormalization", [t + "r1", t + "ln1_g", t + "ln1_b"], [t + "x1"], axis=-1, epsilon=eps),
            N("MatMul", [t + "x1", t + "f1_w"], [t + "h0"]),
            N("Add", [t + "h0", t + "f1_b"], [t + "h1"]),
            N("Mul", [t + "h1", "inv_sqrt2"], [t + "g0"]),
            N("Erf", [t + "g0"], [t + "g1"]),
            N("Add", [t + "g1", "one_f"], [t + "g2"]),
            N("Mul", [t + "h1", t + "g2"], [t + "g3"]),
            N("Mul", [t + "g3", "half"], [t + "g4"]),
            N("MatMul", [t + "g4", t + "f2_w"], [t + "h2"]),
            N("Add", [t + "h2", t + "f2_b"], [t + "h3"]),
            N("Add", [t + "x1", t + "h3"], [t + "r2"]),
        ]
        out = "last_hidden_state" if i == L - 1 else t + "x2"
        nodes.append(N("LayerNormalization", [t + "r2", t + "ln2_g", t + "ln2_b"], [out], axis=-1, epsilon=eps))
        x = out
    ints = lambda name: helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])
    inputs = [ints("input_ids"), ints("attention_mask")] + ([ints("token_type_ids")] if arch == "bert" else [])
    graph = helper.make_graph(nodes, arch + "_sentence_encoder", inputs,
                              [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", H])],
                              initializer=list(inits.values()))
    model = helper.make_model(graph, producer_name="megagit lab/scripts/st-to-onnx.py",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def reference(arch, cfg, w, ids):
    """float64 forward pass of BertModel / MPNetModel for one unpadded sentence: [S, H]."""
    f = lambda k: w[k].astype(np.float64)
    H, nh, L, eps = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"], cfg["layer_norm_eps"]
    dh = H // nh
    ids = np.array(ids)
    S = len(ids)
    if arch == "bert":
        x = f("embeddings.word_embeddings.weight")[ids] + f("embeddings.position_embeddings.weight")[:S] \
            + f("embeddings.token_type_embeddings.weight")[0]
        bias = 0
    else:
        pad = cfg.get("pad_token_id", 1)
        m = (ids != pad).astype(np.int64)
        pos = np.cumsum(m) * m + pad
        x = f("embeddings.word_embeddings.weight")[ids] + f("embeddings.position_embeddings.weight")[pos]
        ctx = np.arange(S)[:, None]
        mem = np.arange(S)[None, :]
        bucket = mpnet_bucket(mem - ctx, cfg.get("relative_attention_num_buckets", 32))
        bias = f("encoder.relative_attention_bias.weight")[bucket].transpose(2, 0, 1)  # [nh,S,S]
    x = layer_norm(x, f("embeddings.LayerNorm.weight"), f("embeddings.LayerNorm.bias"), eps)
    for i in range(L):
        n = names(arch, i)
        lin = lambda v, p: v @ f(n[p] + ".weight").T + f(n[p] + ".bias")
        heads = lambda v: v.reshape(S, nh, dh).transpose(1, 0, 2)
        q, k, v = heads(lin(x, "q")), heads(lin(x, "k")), heads(lin(x, "v"))
        s = q @ k.transpose(0, 2, 1) / math.sqrt(dh) + bias
        p = np.exp(s - s.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        c = (p @ v).transpose(1, 0, 2).reshape(S, H)
        x = layer_norm(x + lin(c, "o"), f(n["ln1"] + ".weight"), f(n["ln1"] + ".bias"), eps)
        h = lin(x, "f1")
        h = 0.5 * h * (1 + np.vectorize(math.erf)(h / math.sqrt(2)))
        x = layer_norm(x + lin(h, "f2"), f(n["ln2"] + ".weight"), f(n["ln2"] + ".bias"), eps)
    return x


def unit(v):
    return v / np.linalg.norm(v)


def run(path, enc, arch, pad_id):
    import onnxruntime as ort

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    S = max(len(e.ids) for e in enc)
    ids = np.full((len(enc), S), pad_id, np.int64)
    mask = np.zeros((len(enc), S), np.int64)
    for i, e in enumerate(enc):
        ids[i, : len(e.ids)] = e.ids
        mask[i, : len(e.ids)] = 1
    feed = {"input_ids": ids, "attention_mask": mask}
    if any(i.name == "token_type_ids" for i in sess.get_inputs()):
        feed["token_type_ids"] = np.zeros_like(ids)
    return sess.run(["last_hidden_state"] if any(o.name == "last_hidden_state" for o in sess.get_outputs())
                    else None, feed)[0], mask


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--check-int8", default="", help="another ONNX export of the same model to compare pooled vectors with")
    a = ap.parse_args()
    from tokenizers import Tokenizer

    cfg, w = load(a.src)
    arch = {"bert": "bert", "mpnet": "mpnet"}[cfg["model_type"]]
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "model.onnx")
    model = build(arch, cfg, w)
    onnx.checker.check_model(model)
    onnx.save(model, path)
    shutil.copy(os.path.join(a.src, "tokenizer.json"), os.path.join(a.out, "tokenizer.json"))
    tok = Tokenizer.from_file(os.path.join(a.src, "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    enc = [tok.encode(s) for s in SENTENCES]
    pad_id = cfg.get("pad_token_id", 0)
    got, mask = run(path, enc, arch, pad_id)
    worst_tok = worst_vec = 0.0
    for i, e in enumerate(enc):
        ref = reference(arch, cfg, w, e.ids)
        n = len(e.ids)
        worst_tok = max(worst_tok, float(np.abs(got[i, :n] - ref).max()))
        worst_vec = max(worst_vec, float(np.abs(unit(got[i, :n].mean(0)) - unit(ref.mean(0))).max()))
    print("%s: %s, %d layers, hidden %d; max |onnx - numpy| token states %.2e, pooled vectors %.2e"
          % (path, arch, cfg["num_hidden_layers"], cfg["hidden_size"], worst_tok, worst_vec))
    if a.check_int8:
        other, _ = run(a.check_int8, enc, arch, pad_id)
        cos = []
        for i, e in enumerate(enc):
            n = len(e.ids)
            cos.append(float(unit(got[i, :n].mean(0)) @ unit(other[i, :n].mean(0))))
        print("cosine with %s, per sentence: %s" % (a.check_int8, " ".join("%.4f" % c for c in cos)))
    if worst_tok > 1e-4 or worst_vec > 1e-4:
        sys.exit("export differs from the reference by more than 1e-4")


if __name__ == "__main__":
    main()
