"""torchada._core.files: atomic writes and locks used by the porter,
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
