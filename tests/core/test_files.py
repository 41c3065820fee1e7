"""torchada._core.files: private directories, atomic writes and locks used by the porter,
the build integration and the simulator backend."""
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from torchada._core import files


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_private_dir_creates_every_level_0o700(tmp_path):
    path = files.private_dir("a", "b", create=True, root=str(tmp_path / "root"))
    assert path == str(tmp_path / "root" / "a" / "b")
    for p in (tmp_path / "root", tmp_path / "root" / "a", tmp_path / "root" / "a" / "b"):
        assert mode(p) == 0o700


def test_private_dir_without_create_touches_nothing(tmp_path):
    path = files.private_dir("x", root=str(tmp_path / "none"))
    assert path == str(tmp_path / "none" / "x") and not (tmp_path / "none").exists()


def test_write_atomic_keeps_mode_and_new_files_are_private(tmp_path):
    target = tmp_path / "f.txt"
    target.write_bytes(b"old")
    target.chmod(0o640)
    files.write_atomic(str(target), b"new")
    assert target.read_bytes() == b"new" and mode(target) == 0o640
    fresh = tmp_path / "g.txt"
    files.write_atomic(str(fresh), b"x")
    assert fresh.read_bytes() == b"x" and mode(fresh) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt", "g.txt"]  # no temp left


def test_lock_timeout_names_the_file(tmp_path):
    lock = tmp_path / "busy.lock"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f'''
        import fcntl, os, sys, time
        fd = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        print("held", flush=True)
        time.sleep(60)
    ''')], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(files.LockTimeout, match="busy.lock"):
            with files.file_lock(str(lock), timeout=0.3):
                pass
    finally:
        holder.kill()
        holder.wait()
    with files.file_lock(str(lock), timeout=5) as held:  # the kernel released the dead holder's lock
        assert held is True
