"""The worked example of docs/internals.md runs as written: a new area is one manifest row
and one file; a fix inside it is one ``Fix`` in the row and one function in the file."""
import re

from tests._fresh import FIXTURES, ROOT, clean_env, run_python

RUN = """
import sys
sys.path[:0] = [%r, %r]
import torchada_boot
torchada_boot.decision = ('musa', 'test')
from torchada._core import activation
from torchada._core.manifest import Area, Fix
ROW = eval(open(%r).read())
activation.activate_musa('test', [ROW], package='example_areas')
import torch, torchada
print('HELLO', torch.cuda.hello() if hasattr(torch.cuda, 'hello') else None)
for line in str(torchada.status()).splitlines():
    if 'hello' in line:
        print('STATUS', line.strip())
torchada.revert()
print('REVERTED', hasattr(torch.cuda, 'hello'))
"""


def example_blocks():
    text = (ROOT / "docs" / "internals.md").read_text()
    section = text.split("## Worked example", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def run_example(tmp_path, with_fix, unit_name=None, **env):
    row, module, fix_entry, unit = example_blocks()
    row = row.strip().rstrip(",")
    if with_fix:
        row = row[:-1] + ", " + fix_entry.strip() + ")"
        if unit_name:
            unit = unit.replace('"shout"', repr(unit_name))
        module += "\n\n" + unit
    package = tmp_path / "example_areas"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "hello.py").write_text(module)
    (tmp_path / "row.py").write_text(row)
    proc = run_python(RUN % (str(FIXTURES / "fake_musa"), str(tmp_path), str(tmp_path / "row.py")),
                      env=clean_env(**env))
    out = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition(" ")
        out.setdefault(key, []).append(" ".join(value.split()))  # columns as single spaces
    return out, proc.stderr


def test_the_documented_area_applies_reports_and_reverts(tmp_path):
    out, _ = run_example(tmp_path, with_fix=False)
    assert out["HELLO"] == ["hello from 2 MUSA device(s)"]  # the fake torch_musa has two
    assert len(out["STATUS"]) == 1
    assert re.fullmatch(r"hello applied \(.*\) \[hello installed on torch_musa 2\.7\.1\]",
                        out["STATUS"][0]), out["STATUS"]
    assert out["REVERTED"] == ["False"]


def test_the_documented_fix_is_one_row_entry_and_one_function(tmp_path):
    out, _ = run_example(tmp_path, with_fix=True)
    assert out["HELLO"] == ["HELLO FROM 2 MUSA DEVICE(S)"]  # fake torch_musa 2.7.1 < 2.8
    assert out["STATUS"][1:] == ["hello.shout applied"]
    assert out["REVERTED"] == ["False"]


def test_the_documented_fix_is_disabled_alone(tmp_path):
    out, _ = run_example(tmp_path, with_fix=True, TORCHADA_DISABLE_AREAS="hello.shout")
    assert out["HELLO"] == ["hello from 2 MUSA device(s)"]
    assert out["STATUS"][1:] == ["hello.shout skipped - disabled by TORCHADA_DISABLE_AREAS"]


def test_a_misspelled_unit_fails_the_area_naming_fix_and_unit(tmp_path):
    out, stderr = run_example(tmp_path, with_fix=True, unit_name="shuot")
    assert out["HELLO"] == ["None"]
    status = out["STATUS"][0]
    assert status.startswith("hello") and " failed " in status, status
    assert "manifest fix 'shout' has no @_kit.fix unit in example_areas.hello" in status
    assert "unit 'shuot' of example_areas.hello is not in the manifest row's fixes" in status
    assert "area 'hello' cannot load area module" in stderr
