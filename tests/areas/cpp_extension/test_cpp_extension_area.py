"""The cpp_extension area follows the area contract and changes nothing elsewhere."""
import inspect
import subprocess
import sys

import pytest

from torchada._core import area_run
from torchada.areas import cpp_extension as area


class FakeJournal:
    """Records every write and can undo it (stands in for torchada._core.journal)."""

    def __init__(self):
        self.writes = []
        self.undo = []

    def setattr(self, owner, name, value):
        self.writes.append((owner, name))
        missing = object()
        old = owner.__dict__.get(name, missing)
        setattr(owner, name, value)
        self.undo.append(lambda: delattr(owner, name) if old is missing else setattr(owner, name, old))

    def setitem(self, mapping, key, value):
        raise AssertionError("cpp_extension writes no mappings")

    def on_revert(self, fn):
        self.undo.append(fn)

    def revert(self):
        while self.undo:
            self.undo.pop()()


def test_contract_shape():
    from torchada.areas.manifest import AREAS

    row = next(a for a in AREAS if a.name == "cpp_extension")
    assert row.triggers == ("torch.utils.cpp_extension",)
    assert row.gate().platforms == ("musa",)
    doc = area.__doc__
    assert "CUDA APIs made to work" in doc and "torch_musa APIs relied on" in doc
    public = {k for k in vars(area) if not k.startswith(("_", "@"))}
    assert public <= {"apply"}


def test_apply_writes_only_through_the_journal_and_reverts(tmp_path, monkeypatch):
    import torch.utils.cpp_extension as cpp

    monkeypatch.setenv("MUSA_HOME", str(tmp_path / "musa"))

    before = dict(vars(cpp))
    signatures = {n: inspect.signature(getattr(cpp, n)) for n in
                  ("include_paths", "library_paths", "load", "load_inline")}
    journal = FakeJournal()
    area_run.run(area, journal)
    try:
        base = cpp.BuildExtension  # created lazily, through the journal
        after = dict(vars(cpp))
        torch_lazy = {"_BUILD_EXTENSION_BASE_INITIALIZED"}  # torch's own lazy-init flag
        changed = {k for k in set(before) | set(after)
                   if before.get(k) is not after.get(k)} - torch_lazy
        assert changed == {name for _, name in journal.writes}
        assert changed >= {"include_paths", "library_paths", "CUDAExtension", "BuildExtension",
                           "CUDA_HOME", "load", "load_inline"}
        assert base.__module__ == "torchada.porting.build"
        for n, sig in signatures.items():
            assert inspect.signature(getattr(cpp, n)) == sig, n
        # PyTorch 2.6+ signature, positionally and by keyword; CPU answers unchanged
        assert cpp.include_paths() == before["include_paths"]()
        assert cpp.include_paths("cpu") == before["include_paths"]("cpu")
        # keywords newer torch added (torch_include_dirs, cross_target_platform) pass through
        extra = [p for p in ("torch_include_dirs", "cross_target_platform")
                 if p in inspect.signature(before["include_paths"]).parameters]
        kw = {k: v for k, v in (("torch_include_dirs", False), ("cross_target_platform", None))
              if k in extra}
        assert cpp.include_paths(device_type="cpu", **kw) == \
            before["include_paths"](device_type="cpu", **kw)
        positional = ("cpu", True, None)[:len(
            inspect.signature(before["library_paths"]).parameters)]
        assert cpp.library_paths(*positional) == before["library_paths"](*positional)
        cuda_paths = cpp.include_paths(device_type="cuda")
        assert cuda_paths[:len(before["include_paths"]("cpu"))] == before["include_paths"]("cpu")
        from setuptools.command.build_ext import build_ext

        assert issubclass(cpp.BuildExtension, build_ext)
    finally:
        journal.revert()
    restored = {k: v for k, v in vars(cpp).items() if k not in ("_BUILD_EXTENSION_BASE_INITIALIZED", "BuildExtension")}
    assert restored == {k: v for k, v in before.items() if k not in ("_BUILD_EXTENSION_BASE_INITIALIZED", "BuildExtension")}
    assert cpp.BuildExtension.__module__ == "torch.utils.cpp_extension"


def test_plain_import_changes_nothing(tmp_path):
    code = ("import os, torchada.areas.cpp_extension, torchada.utils.cpp_extension,"
            " torchada.porting; import sys; assert 'torch' not in sys.modules;"
            "assert not os.path.exists(%r)" % str(tmp_path / "cache"))
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_cpu_torch_compile_with_cold_inductor_cache_after_apply(tmp_path):
    """Inductor calls include_paths / library_paths positionally and by keyword."""
    code = '''
import torch, torch.utils.cpp_extension as cpp
from torchada.areas import cpp_extension as area
class J:
    def setattr(self, o, n, v): setattr(o, n, v)
    def setitem(self, m, k, v): m[k] = v
    def on_revert(self, f): pass
from torchada._core import area_run
area_run.run(area, J())
# + 3 keeps the result in [1, 5]: no cancellation near zero, so float32's
# default tolerances (a few ulp) hold for a vectorised sin against libm's.
f = torch.compile(lambda x: torch.sin(x) * 2 + 3)
x = torch.randn(16)
torch.testing.assert_close(f(x), torch.sin(x) * 2 + 3)
print("ok")
'''
    env = dict(__import__("os").environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"),
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0 and "No working C++ compiler" in proc.stderr:
        pytest.skip("no C++ compiler for inductor")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("ok")
