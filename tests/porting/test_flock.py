"""JIT builds under flock: a builder killed mid-build never blocks the next one, and
concurrent builders compile once."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

BUILDER = textwrap.dedent('''
    import os, sys, time
    from torch.utils.file_baton import FileBaton
    from torchada.porting.jit_lock import locked_load

    build_dir, mode = sys.argv[1], sys.argv[2]

    def fake_load(name, sources, build_directory=None, verbose=False):
        """Mimics torch's _jit_compile: FileBaton in build_directory, build once."""
        baton = FileBaton(os.path.join(build_directory, "lock"))
        if baton.try_acquire():
            try:
                out = os.path.join(build_directory, name + ".so")
                if not os.path.exists(out):
                    with open(os.path.join(build_directory, "compiles"), "a") as fh:
                        fh.write("x")
                    open(os.path.join(build_directory, "started"), "w").close()
                    time.sleep({"hang": 30, "plain": 3}.get(mode, 0.5))
                    open(out, "w").close()
            finally:
                baton.release()
        else:
            baton.wait()
        return "module"

    # "plain": a build torchada did not start (torchada off, or another cache root)
    load = fake_load if mode == "plain" else locked_load(fake_load, lambda name, verbose: build_dir)
    print(load("demo_ext", ["a.cu"], build_directory=build_dir))
''')


def spawn(tmp_path, build_dir, mode):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    return subprocess.Popen([sys.executable, "-c", BUILDER, str(build_dir), mode], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(path, timeout=60):
    deadline = time.time() + timeout
    while not os.path.exists(path):
        if time.time() > deadline:
            raise AssertionError("timed out waiting for %s" % path)
        time.sleep(0.05)


def test_killed_builder_does_not_block_the_next(tmp_path):
    build_dir = tmp_path / "build"
    build_dir.mkdir()
    first = spawn(tmp_path, build_dir, "hang")
    wait_for(build_dir / "started")
    assert (build_dir / "lock").exists()  # torch's baton is held
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    assert (build_dir / "lock").exists()  # ... and left behind by the killed builder
    (build_dir / "started").unlink()
    second = spawn(tmp_path, build_dir, "quick")
    out, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    assert out.strip() == "module" and (build_dir / "demo_ext.so").exists()
    assert not (build_dir / "lock").exists()


def test_a_lock_torchada_does_not_own_is_left_alone(tmp_path):
    """torch's lock held by a live build torchada did not start: torchada's builder waits
    for it as torch does, and both get the one build."""
    build_dir = tmp_path / "build"
    build_dir.mkdir()
    plain = spawn(tmp_path, build_dir, "plain")
    wait_for(build_dir / "started")
    assert (build_dir / "lock").exists()
    mine = spawn(tmp_path, build_dir, "quick")
    for p in (plain, mine):
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0 and out.strip() == "module", err
    assert (build_dir / "compiles").read_text() == "x"  # never two builds at once
    assert "is held by a build torchada did not start" in err
    assert not (build_dir / "lock").exists()


def test_concurrent_builders_compile_once(tmp_path):
    build_dir = tmp_path / "build"
    build_dir.mkdir()
    procs = [spawn(tmp_path, build_dir, "quick") for _ in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert (build_dir / "compiles").read_text() == "x"


def test_lock_file_lives_in_the_private_cache(tmp_path, _private_cache):
    from torchada.porting.jit_lock import build_lock, lock_path

    with build_lock("my/ext name", None) as locked:
        assert locked
    path = lock_path("my/ext name")
    assert path.startswith(str(_private_cache)) and os.path.basename(path) == "my_ext_name.lock"
    import stat

    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700


def test_without_flock_one_warning_and_torch_behaviour(monkeypatch):
    import fcntl

    import torchada.porting.jit_lock as build

    def broken(fd, op):
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(fcntl, "flock", broken)
    monkeypatch.setattr("torchada._core.warn_once._SEEN", set())
    calls = []
    load = build.locked_load(lambda name, sources=None: calls.append(name) or "m",
                             lambda name, verbose: None)
    with pytest.warns(RuntimeWarning, match="flock"):
        assert load("a") == "m"
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load("b") == "m"  # only one warning per process
    assert calls == ["a", "b"]


def test_wrapper_keeps_torch_load_signature():
    import inspect

    import torch.utils.cpp_extension as cpp

    from torchada.porting.jit_lock import locked_load

    for name in ("load", "load_inline"):
        original = getattr(cpp, name)
        assert inspect.signature(locked_load(original, cpp._get_build_directory)) == \
            inspect.signature(original)
