"""What is loaded is what was verified (native_cache.opened): the library is opened once, its
owner, mode and digest checked on that open file, and the loader is handed /proc/self/fd/<n>.
A library swapped in (with a matching digest) between the check and the load is not what
gets loaded; a corrupted one is refused, naming it; the builder loads its own output the same
way, from the cache, never from its temporary build folder."""
import os
import shutil
import subprocess

import pytest

from tests._fresh import SRC, clean_env, last_json, run_python

from torchada._core import native_cache


def _library(folder, answer):
    """A real shared library whose ``answer()`` returns ``answer`` (the host C compiler)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc / gcc) on PATH to build a test library")
    source = os.path.join(folder, "answer%d.c" % answer)
    with open(source, "w") as f:
        f.write("int answer(void) { return %d; }\n" % answer)
    out = os.path.join(folder, "answer%d.so" % answer)
    subprocess.run([cc, "-shared", "-fPIC", source, "-o", out], check=True)
    return out


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(native_cache, "_SAFE_ANCESTORS", set())
    return native_cache.trusted_dir("build", "k", root=str(tmp_path / "cache" / "torchada"))


def _placed(cache, tmp_path, answer, name="lib.so"):
    work = os.path.join(cache, ".build-test-%d" % answer)
    os.mkdir(work, 0o700)
    final = os.path.join(cache, name)
    native_cache.place(shutil.copy(_library(str(tmp_path), answer), work), final)
    os.rmdir(work)
    return final


_SWAP = """
import ctypes, json, os, sys
from torchada._core import native_cache
final, planted = sys.argv[1], sys.argv[2]
with native_cache.opened(final) as loadable:
    # between the check and the load: another library, with its own matching digest,
    # renamed over the path (what a concurrent writer of the folder could do)
    os.replace(planted + ".sha256", final + ".sha256")
    os.replace(planted, final)
    loaded = ctypes.CDLL(loadable).answer()
by_path = ctypes.CDLL(final).answer()  # the control: the path now names the swapped file
print(json.dumps({"loadable": loadable, "loaded": loaded, "by_path": by_path}))
"""


def test_a_library_swapped_after_the_check_is_not_what_is_loaded(cache, tmp_path):
    final = _placed(cache, tmp_path, 1)
    planted = _placed(cache, tmp_path, 2, name="planted.so")
    assert native_cache.check(planted) is None  # a pair that passes every check on its own
    out = last_json(run_python(_SWAP, script_args=[final, planted],
                               env=clean_env(PYTHONPATH=str(SRC))))
    assert out["loadable"].startswith("/proc/self/fd/")
    assert out["loaded"] == 1  # the verified bytes
    assert out["by_path"] == 2  # loading by name after the swap would have run the other one


def test_a_corrupted_library_is_refused_naming_it(cache, tmp_path):
    final = _placed(cache, tmp_path, 1)
    with open(final, "r+b") as f:
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(native_cache.BadLibrary) as err:
        with native_cache.opened(final):
            pytest.fail("a corrupted library reached the loader")
    assert str(err.value) == ("torchada: the library %s does not match its digest; it is not "
                              "loaded" % final)
    from torchada.areas._kit import extension_builder

    with pytest.raises(native_cache.BadLibrary, match="the library %s does not match" % final):
        extension_builder._import_extension("lib", final)


def test_a_library_of_another_user_is_refused_at_load(cache, tmp_path):
    final = _placed(cache, tmp_path, 1)
    os.chown(final, 4242, 4242)  # run as root: a file of a user who is neither us nor root
    if os.lstat(final).st_uid != 4242:
        pytest.skip("cannot give the file to another user here (not root)")
    with pytest.raises(native_cache.BadLibrary,
                       match="%s belongs to another user or can be written by others" % final):
        with native_cache.opened(final):
            pytest.fail("another user's library reached the loader")


_EXTENSION = r"""
#include <Python.h>
static PyModuleDef definition = {PyModuleDef_HEAD_INIT, "torchada_verified_load_test",
                                 nullptr, -1, nullptr};
PyMODINIT_FUNC PyInit_torchada_verified_load_test(void) {
    PyObject *module = PyModule_Create(&definition);
    if (module) PyModule_AddIntConstant(module, "answer", 42);
    return module;
}
"""

_BUILDER = """
import json, os, sys
from torchada._core import native_cache
from torchada.areas._kit import extension_builder
opened = []
real = native_cache.opened
def recording(path):
    opened.append(path)
    return real(path)
native_cache.opened = recording
module = extension_builder.build("torchada_verified_load_test", [sys.argv[1]], "the test extension",
                      name="torchada_verified_load_test", musa=False)
with open("/proc/self/maps") as f:
    maps = sorted({line.split(None, 5)[-1].strip() for line in f
                   if "torchada_verified_load_test" in line})
print(json.dumps({"file": module.__file__, "answer": module.answer, "opened": opened,
                  "compiled": sorted(extension_builder.COMPILED), "maps": maps}))
"""


def test_the_builder_loads_its_own_output_from_the_cache_after_the_check(tmp_path):
    source = tmp_path / "ext.cpp"
    source.write_text(_EXTENSION)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    env = clean_env(PYTHONPATH=str(SRC), XDG_CACHE_HOME=str(home))
    out = last_json(run_python(_BUILDER, script_args=[str(source)], env=env, timeout=600))
    final = os.path.join(str(home), "torchada", "build", "torchada_verified_load_test",
                         "torchada_verified_load_test.so")
    assert out["compiled"] == ["torchada_verified_load_test"]  # this process built it ...
    assert out["answer"] == 42 and out["file"] == final
    assert out["opened"] == [final]  # ... and loaded it through the check, from the cache
    assert out["maps"] == [final]  # never mapped from its temporary build folder
    assert native_cache.check(final) is None


def test_every_loader_of_torchadas_own_libraries_goes_through_the_check():
    """docs/security.md: every load of a library torchada built goes through
    native_cache.opened; torch.ops.load_library (which resolves /proc/self/fd/<n> back to
    the path) is not used for them."""
    import ast
    from pathlib import Path

    src = Path(SRC) / "torchada"
    loaders = {"areas/_kit/extension_builder.py": "ExtensionFileLoader",
               "testing/_backend/__init__.py": "CDLL",
               "testing/_simroot/torch_musa/_sim/runtime_libs.py": "CDLL"}
    for rel, call in loaders.items():
        tree = ast.parse((src / rel).read_text())
        inside = []
        for node in ast.walk(tree):
            if isinstance(node, ast.With) and "native_cache.opened" in ast.unparse(node.items[0]):
                inside += [ast.unparse(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)]
        everywhere = [ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)]
        loads = [name for name in everywhere if name.endswith(call)]
        assert loads and sorted(loads) == sorted(n for n in inside if n.endswith(call)), rel
    users = [str(p.relative_to(src)) for p in src.rglob("*.py")
             if "ops.load_library(" in p.read_text()]
    assert users == [], users
