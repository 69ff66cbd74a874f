# scrub.py SRC DST: machine paths replaced, long strings of bulky lines cut.
import json, sys
src, dst = sys.argv[1], sys.argv[2]
REPL = [("/tmp/histwork/home", "/home/user"), ("/tmp/histwork/market", "/home/user/src/market"),
        ("/tmp/histwork/proj", "/home/user/proj"), ("-tmp-histwork-proj", "-home-user-proj"),
        ("/tmp/claude-0", "/tmp/claude-1000"), ("Linux 6.18.44-fc-v1098", "Linux 6.8.0")]
def cut(v, limit, lists=True):
    if isinstance(v, str):
        return v if len(v) <= limit else v[:limit] + " [cut for the fixture]"
    if isinstance(v, list):
        return [cut(x, limit, lists) for x in (v[:3] if lists else v)]
    if isinstance(v, dict):
        return {k: cut(x, limit, lists) for k, x in v.items()}
    return v
out = []
for line in open(src, encoding="utf-8"):
    for a, b in REPL:
        line = line.replace(a, b)
    if not line.strip():
        continue
    d = json.loads(line)
    t = d.get("type")
    if t in ("attachment", "api-request-shape", "api-request-blob", "api-request", "session_meta", "world_state", "turn_context") \
       or (t == "response_item" and d.get("payload", {}).get("role") == "developer"):
        d = cut(d, 300)
    elif "$set" in d:
        # A resumed Gemini CLI chat's $set holds the whole message list:
        # only its long texts (the session context) are cut.
        d = cut(d, 1000, lists=False)
    out.append(json.dumps(d, ensure_ascii=False, separators=(",", ":")))
open(dst, "w", encoding="utf-8").write("\n".join(out) + "\n")
