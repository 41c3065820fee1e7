"""Cache housekeeping that only touches what is torchada's and provably dead: the sweep of
temporary build folders judges a builder's pid only in its own host and pid namespace (a
live build in another container, whose pid means nothing here, keeps its folder)."""
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from tests._fresh import SRC, clean_env

from torchada._core import native_cache


@pytest.fixture
def directory(tmp_path, monkeypatch):
    monkeypatch.setattr(native_cache, "_SAFE_ANCESTORS", set())
    return native_cache.trusted_dir("build", "k", root=str(tmp_path / "cache" / "torchada"))


def _dead_pid():
    """A pid no process here has (from the top of the range: the kernel hands out low ones)."""
    with open("/proc/sys/kernel/pid_max") as f:
        pid = int(f.read()) - 100
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        pid -= 1


def test_the_host_tag_names_this_host_and_pid_namespace():
    assert native_cache.host_tag() == "%s~%d" % (socket.gethostname(),
                                                 os.stat("/proc/self/ns/pid").st_ino)
    assert native_cache.work_prefix() == ".build-%d@%s-" % (os.getpid(), native_cache.host_tag())


def test_sweep_judges_pids_of_this_host_only(directory):
    dead = _dead_pid()
    ours = native_cache.host_tag()
    folders = {
        "ours_dead": ".build-%d@%s-a1" % (dead, ours),
        "ours_alive": ".build-%d@%s-b2" % (os.getppid(), ours),
        "other_host_dead_pid": ".build-%d@otherhost~%s-c3" % (dead, ours.split("~")[1]),
        "other_namespace_dead_pid": ".build-%d@%s~1-d4" % (dead, ours.split("~")[0]),
        "untagged_recent": ".build-%d-e5" % dead,
        "untagged_old": ".build-%d-f6" % dead,
    }
    for name in folders.values():
        os.mkdir(os.path.join(directory, name))
    two_days_ago = time.time() - 2 * 86400
    os.utime(os.path.join(directory, folders["untagged_old"]), (two_days_ago, two_days_ago))
    native_cache.sweep(directory)
    left = {key for key, name in folders.items() if os.path.exists(os.path.join(directory, name))}
    assert left == {"ours_alive", "other_host_dead_pid", "other_namespace_dead_pid",
                    "untagged_recent"}


_BUILDER = """
import os, sys, time
from torchada._core import native_cache
directory, started, release = sys.argv[1:4]
def build_into(work):
    with open(started, "w") as f:
        f.write(work)
    while not os.path.exists(release):
        time.sleep(0.05)
    out = os.path.join(work, "lib.so")
    with open(out, "wb") as f:
        f.write(b"\\x7fELF" + b"x" * 4000)
    return out
# the lock of another host: flock does not reach across hosts on a shared home
print(native_cache.fetch(directory, "lib.so", build_into, "the test library",
                         lock=directory + ".other-host.lock"))
"""
# pid 1 of a new pid namespace: starts the builder with a pid no process has out here
_LAUNCHER = """
import subprocess, sys
with open("/proc/sys/kernel/ns_last_pid", "w") as f:
    f.write(sys.argv[1])
sys.exit(subprocess.call([sys.executable, "-c", sys.argv[2]] + sys.argv[3:]))
"""


def test_a_live_build_in_another_pid_namespace_keeps_its_folder(directory, tmp_path):
    unshare = shutil.which("unshare")
    if os.geteuid() != 0 or unshare is None:
        pytest.skip("needs root and unshare(1) to start a builder in a new pid namespace")
    pid = _dead_pid() - 10  # the builder's pid in its namespace: no process here has it
    started, release = tmp_path / "started", tmp_path / "release"
    proc = subprocess.Popen([unshare, "--pid", "--fork", "--mount-proc", sys.executable, "-c",
                             _LAUNCHER, str(pid - 1), _BUILDER, directory, str(started),
                             str(release)], env=clean_env(PYTHONPATH=SRC),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while not started.exists():
            if proc.poll() is not None:
                out, err = proc.communicate()
                pytest.skip("a new pid namespace could not be made here: %s" % err[-300:])
            assert time.time() < deadline, "the builder never started"
            time.sleep(0.05)
        work = started.read_text()
        assert os.path.basename(work).startswith(".build-%d" % pid)
        native_cache.sweep(directory)  # what this host's next builder does first
        assert os.path.isdir(work), "a live build of another pid namespace lost its folder"
        release.touch()
        out, err = proc.communicate(timeout=60)
    finally:
        release.touch()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert native_cache.check(os.path.join(directory, "lib.so")) is None


def test_a_dead_detached_builders_compilers_are_ended_before_its_folder_is_removed(directory):
    """A detached builder leads its own session (work folder ``.build-<pid>g@...``); killed
    mid-build, its compilers (here a ``sleep`` standing in for cc1plus) go on in its process
    group. The next build's sweep must end them before it removes the folder they write
    into (issue 22: a sweep deleted a folder three generations of compilers still used)."""
    leader = subprocess.Popen(
        [sys.executable, "-c", "import os, subprocess, sys, tempfile; "
         "from torchada._core import native_cache; "
         "work = tempfile.mkdtemp(prefix=native_cache.work_prefix(), dir=sys.argv[1]); "
         "child = subprocess.Popen(['sleep', '300']); print(child.pid, work, flush=True); "
         "os.kill(os.getpid(), 9)", directory],
        env=clean_env(PYTHONPATH=str(SRC)), stdout=subprocess.PIPE, text=True,
        start_new_session=True)
    compiler, work = leader.stdout.readline().split()
    leader.wait(30)
    compiler = int(compiler)
    try:
        assert os.path.basename(work).startswith(".build-%dg@" % leader.pid)
        assert os.getsid(compiler) == leader.pid            # orphaned, still in the group
        native_cache.sweep(directory)
        assert not os.path.exists(work)
        deadline = time.time() + 10
        while time.time() < deadline:
            with open("/proc/%d/stat" % compiler) as f:       # reaped by init, or a zombie
                if f.read().split(") ", 1)[1].startswith("Z"):
                    break
            time.sleep(0.05)
        else:
            raise AssertionError("the orphaned compiler %d still runs" % compiler)
    except FileNotFoundError:
        pass  # already reaped: ended
    finally:
        try:
            os.kill(compiler, 9)
        except ProcessLookupError:
            pass


def test_an_ordinary_builders_group_is_never_signalled(directory):
    """A builder that does not lead its session (any user process) marks no ``g``: its
    group may hold unrelated processes (a shell pipeline), which the sweep leaves alone."""
    assert "g@" not in native_cache.work_prefix()
    assert native_cache._builder(".build-123@h~1-x") == (123, "h~1", False)
    assert native_cache._builder(".build-123g@h~1-x") == (123, "h~1", True)
