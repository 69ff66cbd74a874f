#!/usr/bin/env python3
"""Markdown tables of lab/models-39.md from densebench's -json files.

    python3 models39-table.py RUN.jsonl... [--lexical DIR]

One table per set (dev, test, skills-dev, metatool): a row per model, form
and gate; coverage per kind (with R@1 / R@5 for the kinds that need a
skill), then overall coverage, R@1, R@5, MRR and mean injected tokens.
--lexical DIR adds the rows of `megagit eval --baseline --json` files named
lexical-{rs-dev,rs-test,skills-dev,metatool}.json in DIR (megagit lexical
and plain BM25).
"""
import json
import os
import sys

SETS = [("dev", "rs-dev", "realskills-dev, dev half (tuned and fitted on)"),
        ("test", "rs-test", "realskills-dev, test half"),
        ("skills-dev", "skills-dev", "skills-dev (156 skills, 250 prompts; never tuned on)"),
        ("metatool", "metatool", "MetaTool (199 tools, 2,517 prompts; never tuned on)")]


def cells(s, kinds):
    out = []
    for k in kinds:
        v = s["kinds"].get(k)
        if v is None:
            out.append("-")
        elif v["null"]:
            out.append("%.3f" % v["coverage"])
        else:
            out.append("%.3f (%.3f, %.3f)" % (v["coverage"], v["recall_at_1"], v["recall_at_5"]))
    out.append("%.3f, %.3f, %.3f, %.3f" % (s["coverage"], s["recall_at_1"], s["recall_at_5"], s["mrr"]))
    out.append("%.0f" % s["mean_tokens"])
    return out


def main():
    args = sys.argv[1:]
    lex = None
    if "--lexical" in args:
        i = args.index("--lexical")
        lex = args[i + 1]
        del args[i:i + 2]
    rows = []
    for f in args:
        for line in open(f):
            rows.append(json.loads(line))
    for key, lexname, title in SETS:
        got = [r for r in rows if r["set"] == key]
        base = []
        if lex and os.path.exists(os.path.join(lex, "lexical-%s.json" % lexname)):
            d = json.load(open(os.path.join(lex, "lexical-%s.json" % lexname)))
            base = [("lexical (model none)", "-", "shipped lexical gate", d), ("plain BM25 (--baseline), top 5", "-", "none", d["baseline"]),
                    ("plain BM25 + dynamic K", "-", "none", d["baseline_dynamic_k"])]
        if not got and not base:
            continue
        kinds = sorted({k for r in got for k in r["summary"]["kinds"]} | {k for b in base for k in b[3]["kinds"]},
                       key=lambda k: (k.startswith("null") or k in ("adversarial", "dev_trap", "small_talk", "null"), k))
        print("\n**%s** — coverage per kind (R@1, R@5); overall coverage, R@1, R@5, MRR; mean tokens\n" % title)
        print("| model | form | gate | setting (chosen on dev) | " + " | ".join(kinds) + " | overall | tokens |")
        print("|" + "---|" * (len(kinds) + 6))
        for name, form, gate, s in base:
            print("| %s | %s | %s | - | %s |" % (name, form, gate, " | ".join(cells(s, kinds))))
        for r in got:
            gate = r["gate"]
            if gate == "default":
                gate = "shipped gate" if r["model"].startswith("static") else "floors"
            else:
                gate = "fitted on dev"
            print("| %s | %s | %s | %s | %s |" % (r["model"], r["form"], gate, r["point"].replace("dkfloor=0 ", ""), " | ".join(cells(r["summary"], kinds))))


if __name__ == "__main__":
    main()
