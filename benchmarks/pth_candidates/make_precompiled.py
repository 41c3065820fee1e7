"""Write precompiled_cpythonXY.pth: the checks of torchada_autoload.pth as a code object
marshalled for this interpreter only (no compile at start-up), to measure what the line
costs without its compile step:

    .venv/bin/python benchmarks/pth_candidates/make_precompiled.py
    .venv/bin/python benchmarks/pth_floor.py --candidate benchmarks/pth_candidates/precompiled_cpython311.pth

Not a shippable hook: a marshalled code object is valid for one bytecode version only.
"""
import marshal
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
line = (HERE.parent.parent / "torchada_autoload.pth").read_text().splitlines()[1]
prefix = "import os, sys; "
assert line.startswith(prefix)
code = compile("import os, sys\n" + line[len(prefix):], "<torchada pth>", "exec")
out = HERE / ("precompiled_cpython%d%d.pth" % sys.version_info[:2])
out.write_text("import sys; exec(sys.modules['marshal'].loads(%r))\n" % marshal.dumps(code))
print(out)
