#!/usr/bin/env python3
"""Expand the acronyms of benchmark prompts with V.E.R.A. (Debian dict-vera,
GFDL): every word written in capitals (2-7 letters or digits, an optional
plural s) that V.E.R.A. lists gets its first expansion appended to the
prompt, without V.E.R.A.'s parenthesised notes. An experiment for issue
#29 (the product does not read V.E.R.A.).

    python3 scripts/vera-expand.py < queries.jsonl > expanded.jsonl
"""
import gzip, json, re, sys

def load(path="/usr/share/dictd/vera.dict.dz"):
    text = gzip.open(path, "rt", encoding="utf-8", errors="replace").read()
    out = {}
    for block in re.split(r"\n\s*\n", text):
        lines = [l for l in block.split("\n") if l.strip()]
        if len(lines) < 2 or lines[0].startswith(" "):
            continue
        head, body = lines[0].strip(), " ".join(l.strip() for l in lines[1:])
        body = re.sub(r"\([^)]*\)", "", body)
        body = re.sub(r'"[^"]*"', "", body).strip(" ,;")
        if head not in out and body:
            out[head] = body
    return out

def main():
    vera = load()
    word = re.compile(r"\b([A-Z][A-Z0-9]{1,6})(s?)\b")
    n = 0
    for line in sys.stdin:
        q = json.loads(line)
        extra = []
        for m in word.finditer(q["query"]):
            exp = vera.get(m.group(1))
            if exp and exp not in extra:
                extra.append(exp)
        if extra:
            n += 1
            q["query"] = q["query"] + " (" + "; ".join(extra) + ")"
        print(json.dumps(q))
    print(f"{n} prompts expanded", file=sys.stderr)

main()
