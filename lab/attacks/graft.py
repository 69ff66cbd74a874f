#!/usr/bin/env python3
"""Commit on a repository's HEAD a tree plain git would refuse to build.

usage: graft.py REPO MESSAGE [MODE:]PATH=CONTENT ...
Each PATH (slash-separated, any names: .git, .GIT, .megagit/local/x, names
with newlines as \\n) is set to a blob of CONTENT (\\n and \\xNN escapes
decoded); MODE is 100644 (default), 100755, 120000 (a symlink: CONTENT is
its target) or 160000 (a gitlink: CONTENT is a commit hash). The new commit
moves the checked-out branch; the work tree is not touched.
"""
import subprocess
import sys

repo, msg = sys.argv[1], sys.argv[2]


def git(*args, inp=None):
    return subprocess.run(["git", "-C", repo, *args], input=inp, capture_output=True, check=True).stdout


def read_tree(sha):
    out = {}
    for line in git("ls-tree", "-z", sha).split(b"\0"):
        if not line:
            continue
        meta, name = line.split(b"\t", 1)
        mode, typ, h = meta.split()
        out[name] = [mode, typ, h, None]
    return out


def write_tree(entries):
    lines = b""
    for name, (mode, typ, h, sub) in sorted(entries.items()):
        if sub is not None:
            h = write_tree(sub)
            mode, typ = b"040000", b"tree"
        lines += mode + b" " + typ + b" " + h + b"\t" + name + b"\0"
    return git("mktree", "-z", "--missing", inp=lines).strip()


def unesc(s):
    return s.encode("utf-8").decode("unicode_escape").encode("latin-1")


head = git("rev-parse", "HEAD").strip()
root = read_tree(head + b"^{tree}")
for spec in sys.argv[3:]:
    path, _, content = spec.partition("=")
    mode = b"100644"
    if ":" in path.split("/")[0] and path.split(":", 1)[0].isdigit():
        m, path = path.split(":", 1)
        mode = m.encode()
    parts = [unesc(p) for p in path.split("/")]
    node = root
    for p in parts[:-1]:
        e = node.get(p)
        if e is None or e[1] != b"tree":
            e = node[p] = [b"040000", b"tree", b"", {}]
        if e[3] is None:
            e[3] = read_tree(e[2])
        node = e[3]
    if mode == b"160000":
        node[parts[-1]] = [mode, b"commit", content.encode(), None]
    else:
        h = git("hash-object", "-w", "--stdin", inp=unesc(content)).strip()
        node[parts[-1]] = [mode, b"blob", h, None]
tree = write_tree(root)
commit = git("commit-tree", tree, "-p", head, "-m", msg).strip()
ref = git("symbolic-ref", "HEAD").strip()
git("update-ref", ref, commit)
print(commit.decode())
