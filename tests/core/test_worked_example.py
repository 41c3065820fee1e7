"""The worked example of docs/internals.md (one manifest row, one file) runs as written."""
import re

from tests._fresh import FIXTURES, ROOT, clean_env, run_python

RUN = """
import sys
sys.path[:0] = [%r, %r]
import torchada_boot
torchada_boot.decision = ('musa', 'test')
from torchada._core import activation
from torchada._core.manifest import Area
ROW = eval(open(%r).read())
activation.activate_musa('test', [ROW], package='example_areas')
import torch, torchada
print('HELLO', torch.cuda.hello())
print('STATUS', [l.strip() for l in str(torchada.status()).splitlines() if 'hello' in l][0])
torchada.revert()
print('REVERTED', hasattr(torch.cuda, 'hello'))
"""


def example_blocks():
    text = (ROOT / "docs" / "internals.md").read_text()
    section = text.split("## Worked example", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_documented_area_applies_reports_and_reverts(tmp_path):
    row, module = example_blocks()
    package = tmp_path / "example_areas"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "hello.py").write_text(module)
    (tmp_path / "row.py").write_text(row.strip().rstrip(","))
    proc = run_python(RUN % (str(FIXTURES / "fake_musa"), str(tmp_path), str(tmp_path / "row.py")),
                      env=clean_env())
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    assert lines["HELLO"] == "hello from 2 MUSA device(s)"  # the fake torch_musa has two
    assert re.fullmatch(r"hello\s+applied\s+\(.*\) \[hello installed on torch_musa 2\.7\.1\]",
                        lines["STATUS"]), lines["STATUS"]
    assert lines["REVERTED"] == "False"
