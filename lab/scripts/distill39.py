#!/usr/bin/env python3
"""distill39.py: a static model distilled from a transformer teacher (issue 39, lab/distill-39.md).

Model2Vec's recipe, then tokenlearn's, over the built-in model's vocabulary
(the all-MiniLM-L6-v2 uncased WordPiece vocabulary, 30,522 tokens):

  vocab      every vocabulary token through the teacher ONNX model, alone
             between the teacher's own start and end tokens ([CLS] t [SEP], or
             <s> t </s> for MPNet, whose vocabulary holds every BERT uncased
             token): the mean of the output states, one float32 row a token
             (Model2Vec's "mean" pooling). [PAD]/[CLS]/[SEP]/[MASK] and the
             [unusedN] tokens get a zero row.
  featurize  the texts of a corpus (lab/cmd/distillcorpus) through the teacher
             as sentence-transformers embeds them (mean of the token states
             under the attention mask, L2-normalised), in chunks of --chunk
             texts: a killed run resumes at the first missing chunk.
  m2v        the vocab table centred, PCA to --dim, each row weighed by SIF,
             a / (a + p) with p the token's share of the corpus' tokens:
             a static model folder (model.json + vectors.npy float32).
  train      tokenlearn: the table trained so that the mean of a text's token
             rows reproduces the teacher's sentence embedding of the text
             (the teacher vectors PCA'd to --dim). Tokenlearn's model: unit
             rows times a learnt weight a token, mean over the text, a linear
             layer after it (dropped at the end), MSE, AdamW lr 1e-3, batch
             256, the best validation loss kept (--loss cos: the cosine with
             the target, no linear layer). Checkpoints every --ckpt-every
             steps and at the end of each epoch: the same command resumes.
  mix        two tables side by side (v3 and a distilled one, say), each
             scaled so that its texts' mean vectors weigh alike.
  quantize   a float32 folder to int8 with a float32 scale a row (v3's format).

Needs numpy, onnxruntime and tokenizers (vocab, featurize), numpy alone for
the rest. Run from lab/; the commands are in lab/distill-39.md.
"""
import argparse
import glob
import gzip
import hashlib
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
TOKENIZER = os.path.join(REPO, "models", "assets", "tokenizer.json.gz")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def builtin_vocab():
    with gzip.open(TOKENIZER) as f:
        v = json.load(f)["model"]["vocab"]
    toks = [None] * len(v)
    for t, i in v.items():
        toks[i] = t
    return toks


def tokenizer_sha256():
    # The static loader checks model.json's tokenizer_sha256 against the
    # compiled-in tokenizer's; the built-in model's model.json holds it.
    for meta in sorted(glob.glob(os.path.join(REPO, "models", "staticmodel", "models", "*", "model.json"))):
        with open(meta, encoding="utf-8") as f:
            return json.load(f)["tokenizer_sha256"]
    raise SystemExit("no built-in model.json to read the tokenizer digest from")


def session(model_dir, threads):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    s = ort.InferenceSession(os.path.join(model_dir, "model.onnx"), so, providers=["CPUExecutionProvider"])
    names = [i.name for i in s.get_inputs()]
    return s, names


def run_batch(sess, names, seqs, pad_id):
    L = max(len(x) for x in seqs)
    ids = np.full((len(seqs), L), pad_id, dtype=np.int64)
    am = np.zeros((len(seqs), L), dtype=np.int64)
    for i, x in enumerate(seqs):
        ids[i, : len(x)] = x
        am[i, : len(x)] = 1
    feed = {"input_ids": ids, "attention_mask": am}
    if "token_type_ids" in names:
        feed["token_type_ids"] = np.zeros_like(ids)
    h = sess.run(["last_hidden_state"], feed)[0].astype(np.float64)
    m = am[:, :, None].astype(np.float64)
    return (h * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1)


def teacher_tokenizer(model_dir):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


def special_ids(tok):
    """The teacher's start, end and padding ids."""
    v = tok.get_vocab()
    if "<s>" in v:
        return v["<s>"], v["</s>"], v.get("<pad>", 1)
    return v["[CLS]"], v["[SEP]"], v.get("[PAD]", 0)


def cmd_vocab(a):
    toks = builtin_vocab()
    tok = teacher_tokenizer(a.model)
    tv = tok.get_vocab()
    bos, eos, pad = special_ids(tok)
    sess, names = session(a.model, a.threads)
    skip = {"[PAD]", "[CLS]", "[SEP]", "[MASK]"}
    rows, seqs = [], []
    for i, t in enumerate(toks):
        if t in skip or (t.startswith("[unused") and t.endswith("]")):
            continue
        if t not in tv:
            raise SystemExit(f"token {t!r} is not in the teacher's vocabulary")
        rows.append(i)
        seqs.append([bos, tv[t], eos])
    out = None
    t0 = time.time()
    for k in range(0, len(seqs), a.batch):
        v = run_batch(sess, names, seqs[k : k + a.batch], pad)
        if out is None:
            out = np.zeros((len(toks), v.shape[1]), dtype=np.float32)
        out[rows[k : k + a.batch]] = v
        if k // a.batch % 20 == 0:
            print(f"vocab {k}/{len(seqs)} {time.time() - t0:.0f}s", file=sys.stderr)
    out.tofile(a.out)
    print(f"wrote {a.out}: {out.shape[0]} x {out.shape[1]} float32, {len(rows)} live rows, sha256 {sha256_file(a.out)}")


def read_corpus(path):
    texts, ids, sources = [], [], []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            o = json.loads(line)
            texts.append(o["text"])
            ids.append(o["ids"])
            sources.append(o["source"])
    return texts, ids, sources


def cmd_featurize(a):
    texts, _, _ = read_corpus(a.corpus)
    tok = teacher_tokenizer(a.model)
    _, eos, pad = special_ids(tok)
    sess, names = session(a.model, a.threads)
    os.makedirs(a.out, exist_ok=True)
    n = len(texts)
    nchunks = (n + a.chunk - 1) // a.chunk
    t0 = time.time()
    done = 0
    for c in range(nchunks):
        path = os.path.join(a.out, f"chunk-{c:05d}.npy")
        if os.path.exists(path):
            continue
        part = texts[c * a.chunk : (c + 1) * a.chunk]
        enc = [e.ids for e in tok.encode_batch(part)]
        enc = [e if len(e) <= a.max_len else e[: a.max_len - 1] + [eos] for e in enc]
        order = np.argsort([len(e) for e in enc], kind="stable")
        vec = np.zeros((len(part), 0), dtype=np.float32)
        for k in range(0, len(order), a.batch):
            idx = order[k : k + a.batch]
            v = run_batch(sess, names, [enc[i] for i in idx], pad)
            if vec.shape[1] == 0:
                vec = np.zeros((len(part), v.shape[1]), dtype=np.float32)
            v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
            vec[idx] = v
        np.save(path + ".tmp.npy", vec)
        os.replace(path + ".tmp.npy", path)
        done += len(part)
        rate = done / (time.time() - t0)
        print(f"chunk {c + 1}/{nchunks}: {rate:.1f} texts/s, {(n - (c + 1) * a.chunk) / max(rate, 1e-9) / 60:.0f} min left", file=sys.stderr)
    with open(os.path.join(a.out, "teacher.json"), "w", encoding="utf-8") as f:
        json.dump({"model": os.path.abspath(a.model), "model_sha256": sha256_file(os.path.join(a.model, "model.onnx")),
                   "corpus": os.path.abspath(a.corpus), "corpus_sha256": sha256_file(a.corpus), "texts": n,
                   "chunk": a.chunk, "max_len": a.max_len, "pooling": "mean, normalised"}, f, indent=2)
    print(f"featurized {n} texts into {a.out}")


def load_features(d, n):
    chunks = sorted(glob.glob(os.path.join(d, "chunk-*.npy")))
    y = np.concatenate([np.load(c) for c in chunks], axis=0)
    if y.shape[0] != n:
        raise SystemExit(f"{d}: {y.shape[0]} vectors for {n} texts (featurize not finished?)")
    return y


def token_counts(ids_lists, n):
    c = np.zeros(n, dtype=np.float64)
    for ids in ids_lists:
        np.add.at(c, np.asarray(ids, dtype=np.int64), 1)
    return c


def write_folder(out, table, meta, dtype="float32"):
    os.makedirs(out, exist_ok=True)
    meta = dict(meta)
    meta["dtype"] = dtype
    for f in ("vectors.npy", "scales.npy"):
        if os.path.exists(os.path.join(out, f)):
            os.remove(os.path.join(out, f))
    if dtype == "int8":
        scale = np.abs(table).max(axis=1, keepdims=True) / 127.0
        scale[scale == 0] = 1.0
        q = np.clip(np.rint(table / scale), -127, 127).astype(np.int8)
        np.save(os.path.join(out, "vectors.npy"), q)
        np.save(os.path.join(out, "scales.npy"), scale.astype(np.float32))
    else:
        np.save(os.path.join(out, "vectors.npy"), table.astype(np.float32))
    with open(os.path.join(out, "model.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")


def cmd_m2v(a):
    toks = builtin_vocab()
    n = len(toks)
    t = np.fromfile(a.teacher, dtype="<f4")
    t = t.reshape(n, -1)
    live = np.abs(t).sum(axis=1) > 0
    x = t[live].astype(np.float64)
    x -= x.mean(axis=0)
    cov = x.T @ x / (x.shape[0] - 1)
    ev, evec = np.linalg.eigh(cov)
    ev, evec = ev[::-1], evec[:, ::-1]
    p = x @ evec[:, : a.dim]
    kept = ev[: a.dim].sum() / ev.sum()
    _, ids, sources = read_corpus(a.corpus)
    counts = token_counts([x for x, s in zip(ids, sources) if s not in a.drop_source], n)
    share = (counts + a.smooth) / (counts + a.smooth).sum()
    w = a.sif_a / (a.sif_a + share) if a.weight == "sif" else np.ones(n)
    table = np.zeros((n, a.dim), dtype=np.float32)
    table[live] = (p * w[live, None]).astype(np.float32)
    meta = {
        "id": a.id, "dim": a.dim, "vocab_size": n, "tokenizer_sha256": tokenizer_sha256(),
        "recipe": {"step": "model2vec", "teacher_vectors_sha256": sha256_file(a.teacher), "pca_dim": a.dim,
                   "pca_variance_kept": round(float(kept), 4), "weight": a.weight, "sif_a": a.sif_a,
                   "freq_corpus_sha256": sha256_file(a.corpus), "freq_dropped_sources": a.drop_source,
                   "freq_smoothing": a.smooth,
                   "script": "lab/scripts/distill39.py m2v"},
    }
    write_folder(a.out, table, meta)
    print(f"PCA {t.shape[1]} -> {a.dim}: {kept:.3f} of the variance kept; {live.sum()} live rows; wrote {a.out}")


def load_table(folder):
    v = np.load(os.path.join(folder, "vectors.npy"))
    if v.dtype == np.int8:
        v = v.astype(np.float32) * np.load(os.path.join(folder, "scales.npy"))
    with open(os.path.join(folder, "model.json"), encoding="utf-8") as f:
        meta = json.load(f)
    return v.astype(np.float32), meta


class AdamW:
    def __init__(self, shapes, lr, wd, b1=0.9, b2=0.999, eps=1e-8):
        self.lr, self.wd, self.b1, self.b2, self.eps = lr, wd, b1, b2, eps
        self.m = [np.zeros(s, dtype=np.float32) for s in shapes]
        self.v = [np.zeros(s, dtype=np.float32) for s in shapes]
        self.t = 0

    def step(self, params, grads):
        self.t += 1
        c1 = 1 - self.b1 ** self.t
        c2 = 1 - self.b2 ** self.t
        for p, g, m, v in zip(params, grads, self.m, self.v):
            p *= 1 - self.lr * self.wd
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            p -= self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)


def pca_targets(y, dim):
    mu = y.mean(axis=0)
    yc = (y - mu).astype(np.float64)
    ev, evec = np.linalg.eigh(yc.T @ yc / (len(y) - 1))
    ev, evec = ev[::-1], evec[:, ::-1]
    z = (yc @ evec[:, :dim]).astype(np.float32)
    return z, float(ev[:dim].sum() / ev.sum())


def batch_loss(rows, P, z, flat, offs, loss_kind, grad=True):
    """The loss of texts rows (and its gradients with respect to P = [E, w]
    (+ [W, b] for mse)): each text's vector is the mean of w[t] * E[t] over
    its tokens t; mse compares (vector @ W + b) with the target z[row], cos
    the vector's direction with z[row] (unit rows)."""
    seg_ids = [flat[offs[r] : offs[r + 1]] for r in rows]
    bl = np.array([len(x) for x in seg_ids])
    tid = np.concatenate(seg_ids)
    seg = np.repeat(np.arange(len(rows)), bl)
    E, w = P[0], P[1]
    g = E[tid] * w[tid, None]
    s = np.add.reduceat(g, np.concatenate([[0], np.cumsum(bl)[:-1]]), axis=0) / bl[:, None]
    t = z[rows]
    if loss_kind == "mse":
        W, b = P[2], P[3]
        diff = s @ W + b - t
        loss = float((diff ** 2).mean())
        if not grad:
            return loss, None
        dy = 2 * diff / diff.size
        gW, gb = s.T @ dy, dy.sum(axis=0)
        ds = dy @ W.T
    else:
        nrm = np.maximum(np.linalg.norm(s, axis=1, keepdims=True), 1e-12)
        u = s / nrm
        loss = float((1 - (u * t).sum(axis=1)).mean())
        if not grad:
            return loss, None
        du = -t / len(rows)
        ds = (du - (du * u).sum(axis=1, keepdims=True) * u) / nrm
    dtok = ds[seg] / bl[seg, None]
    gE = np.zeros_like(E)
    np.add.at(gE, tid, dtok * w[tid, None])
    gw = np.zeros_like(w)
    np.add.at(gw, tid, (dtok * E[tid]).sum(axis=1))
    return loss, [gE, gw] + ([gW, gb] if loss_kind == "mse" else [])


def cmd_train(a):
    texts, ids, sources = read_corpus(a.corpus)
    keep = [i for i, s in enumerate(sources) if not any(s == x for x in a.drop_source)]
    y = load_features(a.features, len(texts))
    y = y[keep]
    ids = [ids[i] for i in keep]
    n = len(ids)
    init, meta0 = load_table(a.init)
    V, D = init.shape
    z, var = pca_targets(y, D) if a.target_dim == 0 else pca_targets(y, a.target_dim)
    if a.loss == "cos":
        z /= np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-12)
    print(f"{n} texts; target PCA {y.shape[1]} -> {z.shape[1]}: {var:.3f} of the variance", file=sys.stderr)
    rng = np.random.default_rng(a.seed)
    perm = rng.permutation(n)
    nval = min(10000, n // 10)
    val, tr = perm[:nval], perm[nval:]
    lens = np.array([len(x) for x in ids])
    flat = np.concatenate([np.asarray(x, dtype=np.int64) for x in ids])
    offs = np.concatenate([[0], np.cumsum(lens)])

    ck = os.path.join(a.out, ".checkpoints", "last.npz")
    norms = np.linalg.norm(init, axis=1)
    E = init / np.maximum(norms[:, None], 1e-12)
    w = norms.astype(np.float32).copy()
    Dz = z.shape[1]
    W = b = None
    if a.loss == "mse":
        lim = 1 / np.sqrt(D)
        W = rng.uniform(-lim, lim, size=(D, Dz)).astype(np.float32)
        b = rng.uniform(-lim, lim, size=Dz).astype(np.float32)
    params = [E, w] + ([W, b] if a.loss == "mse" else [])
    opt = AdamW([p.shape for p in params], a.lr, a.wd)
    epoch, pos, step, best, bad = 0, 0, 0, float("inf"), 0
    order = rng.permutation(tr)
    best_table = None
    if os.path.exists(ck):
        s = np.load(ck)
        for i, p in enumerate(params):
            p[...] = s[f"p{i}"]
            opt.m[i][...] = s[f"m{i}"]
            opt.v[i][...] = s[f"v{i}"]
        opt.t = int(s["t"])
        epoch, pos, step, best, bad = int(s["epoch"]), int(s["pos"]), int(s["step"]), float(s["best"]), int(s["bad"])
        order = s["order"]
        best_table = s["best_table"] if "best_table" in s.files else None
        print(f"resumed at epoch {epoch}, step {step}", file=sys.stderr)

    def loss_grad(rows, P, grad=True):
        return batch_loss(rows, P, z, flat, offs, a.loss, grad)

    def val_loss(P):
        tot = 0.0
        for k in range(0, len(val), 1024):
            r = val[k : k + 1024]
            tot += loss_grad(r, P, grad=False)[0] * len(r)
        return tot / len(val)

    def save_ck():
        os.makedirs(os.path.dirname(ck), exist_ok=True)
        d = {f"p{i}": p for i, p in enumerate(params)}
        d.update({f"m{i}": m for i, m in enumerate(opt.m)})
        d.update({f"v{i}": v for i, v in enumerate(opt.v)})
        d.update(t=opt.t, epoch=epoch, pos=pos, step=step, best=best, bad=bad, order=order)
        if best_table is not None:
            d["best_table"] = best_table
        np.savez(ck + ".tmp.npz", **d)
        os.replace(ck + ".tmp.npz", ck)

    if step == 0:
        best = val_loss(params)
        print(f"start: val loss {best:.5f}", file=sys.stderr)
        best_table = (params[0] * params[1][:, None]).astype(np.float32)
    t0 = time.time()
    while epoch < a.epochs and bad < a.patience:
        while pos < len(order):
            rows = order[pos : pos + a.batch]
            loss, grads = loss_grad(rows, params)
            opt.step(params, grads)
            pos += a.batch
            step += 1
            if step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss:.5f} {time.time() - t0:.0f}s", file=sys.stderr)
            if step % a.ckpt_every == 0:
                save_ck()
        vl = val_loss(params)
        if best - vl > 1e-5:
            best, bad = vl, 0
            best_table = (params[0] * params[1][:, None]).astype(np.float32)
        else:
            bad += 1
        print(f"epoch {epoch} done: val loss {vl:.5f} (best {best:.5f}, {bad} without progress)", file=sys.stderr)
        epoch += 1
        pos = 0
        order = rng.permutation(tr)
        save_ck()
    meta = {
        "id": a.id, "dim": D, "vocab_size": V, "tokenizer_sha256": tokenizer_sha256(),
        "recipe": {"step": "tokenlearn", "init": meta0.get("recipe"), "init_id": meta0.get("id"),
                   "corpus_sha256": sha256_file(a.corpus), "texts": n, "dropped_sources": a.drop_source,
                   "features": json.load(open(os.path.join(a.features, "teacher.json"))),
                   "target_pca_variance": round(var, 4), "loss": a.loss, "lr": a.lr, "weight_decay": a.wd,
                   "batch": a.batch, "epochs_run": epoch, "best_val_loss": round(best, 6), "seed": a.seed,
                   "script": "lab/scripts/distill39.py train"},
    }
    write_folder(a.out, best_table, meta)
    print(f"wrote {a.out} (best val loss {best:.5f})")


def sentence_norm(table, ids_lists):
    """The mean norm of texts' mean token rows (the scale of a table)."""
    n = []
    for ids in ids_lists:
        n.append(np.linalg.norm(table[np.asarray(ids, dtype=np.int64)].mean(axis=0)))
    return float(np.mean(n))


def cmd_mix(a):
    """Two tables side by side: each divided by the mean norm of its texts'
    mean vectors over --corpus (so each half weighs alike), times the square
    root of its weight; a text's cosine is then close to the weighted mean of
    the two models' cosines."""
    ta, ma = load_table(a.a)
    tb, mb = load_table(a.b)
    if ta.shape[0] != tb.shape[0]:
        raise SystemExit("the two tables have different vocabularies")
    _, ids, sources = read_corpus(a.corpus)
    rng = np.random.default_rng(1)
    sample = [ids[i] for i in rng.choice(len(ids), size=min(20000, len(ids)), replace=False)
              if sources[i] not in a.drop_source]
    na, nb = sentence_norm(ta, sample), sentence_norm(tb, sample)
    table = np.concatenate([ta / na * np.sqrt(a.wa), tb / nb * np.sqrt(1 - a.wa)], axis=1)
    meta = {
        "id": a.id, "dim": int(table.shape[1]), "vocab_size": int(table.shape[0]), "tokenizer_sha256": tokenizer_sha256(),
        "recipe": {"step": "mix", "a": ma.get("id"), "a_recipe": ma.get("recipe"), "b": mb.get("id"), "b_recipe": mb.get("recipe"),
                   "weight_a": a.wa, "norm_a": round(na, 6), "norm_b": round(nb, 6),
                   "norm_corpus_sha256": sha256_file(a.corpus), "script": "lab/scripts/distill39.py mix"},
    }
    write_folder(a.out, table, meta, dtype=a.dtype)
    print(f"wrote {a.out}: {table.shape[0]} x {table.shape[1]} {a.dtype} (norms {na:.4f}, {nb:.4f})")


def cmd_quantize(a):
    table, meta = load_table(a.src)
    if a.id:
        meta["id"] = a.id
    write_folder(a.out, table, meta, dtype="int8")
    print(f"wrote {a.out}: int8, sha256 vectors {sha256_file(os.path.join(a.out, 'vectors.npy'))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("vocab")
    p.add_argument("--model", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--threads", type=int, default=2)
    p.set_defaults(f=cmd_vocab)
    p = sub.add_parser("featurize")
    p.add_argument("--model", required=True)
    p.add_argument("--corpus", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--chunk", type=int, default=4096)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--max-len", type=int, default=256)
    p.add_argument("--threads", type=int, default=2)
    p.set_defaults(f=cmd_featurize)
    p = sub.add_parser("m2v")
    p.add_argument("--teacher", required=True, help="vocab table from `vocab`")
    p.add_argument("--corpus", required=True, help="the corpus whose token counts weigh the rows")
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--weight", choices=["sif", "none"], default="sif")
    p.add_argument("--sif-a", type=float, default=1e-4)
    p.add_argument("--smooth", type=float, default=1.0)
    p.add_argument("--drop-source", action="append", default=[], help="leave this corpus source out of the counts (repeatable)")
    p.add_argument("--id", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(f=cmd_m2v)
    p = sub.add_parser("train")
    p.add_argument("--init", required=True, help="static model folder to start from (m2v's)")
    p.add_argument("--corpus", required=True)
    p.add_argument("--features", required=True, help="featurize's folder for the same corpus")
    p.add_argument("--drop-source", action="append", default=[], help="leave this corpus source out (repeatable)")
    p.add_argument("--loss", choices=["mse", "cos"], default="mse")
    p.add_argument("--target-dim", type=int, default=0, help="0: the table's dimension")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--wd", type=float, default=0.01)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--patience", type=int, default=2)
    p.add_argument("--ckpt-every", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--id", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(f=cmd_train)
    p = sub.add_parser("mix")
    p.add_argument("--a", required=True, help="static model folder (first half)")
    p.add_argument("--b", required=True, help="static model folder (second half)")
    p.add_argument("--wa", type=float, default=0.5, help="the first table's weight")
    p.add_argument("--corpus", required=True, help="texts whose mean vectors set each table's scale")
    p.add_argument("--drop-source", action="append", default=[])
    p.add_argument("--dtype", choices=["float32", "int8"], default="float32")
    p.add_argument("--id", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(f=cmd_mix)
    p = sub.add_parser("quantize")
    p.add_argument("--src", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--id", default="")
    p.set_defaults(f=cmd_quantize)
    a = ap.parse_args()
    a.f(a)


if __name__ == "__main__":
    main()
