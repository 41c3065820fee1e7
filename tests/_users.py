"""A real non-root user for owner and permission tests: the suite runs as root, and root
passes every owner and mode check, so what torchada refuses to another user is shown by
running a child as one (``run_as``), never by patching ``os.geteuid``.

``non_root_user(tag)`` makes a user and its own group (``useradd`` / ``groupadd``), a folder
under /tmp it can reach, and finds a Python it can run (the suite's may live where only
root can read, a pyenv under /root); it skips, saying why, when not root or when any of
that is impossible here, and removes all of it afterwards.
"""
import contextlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import types

import pytest

from tests._fresh import SRC


@contextlib.contextmanager
def non_root_user(tag):
    if os.geteuid() != 0:
        pytest.skip("creating a test user needs root (this run has uid %d)" % os.geteuid())
    tools = [shutil.which(t) for t in ("useradd", "groupadd", "userdel", "groupdel")]
    if None in tools:
        pytest.skip("useradd / groupadd are not installed: no test user can be made")
    useradd, groupadd, userdel, groupdel = tools
    name = "td%s%d" % (tag, os.getpid())
    made = subprocess.run([groupadd, name], capture_output=True, text=True)
    if made.returncode:
        pytest.skip("groupadd failed: %s" % made.stderr.strip())
    made = subprocess.run([useradd, "-M", "-N", "-g", name, "-s", "/bin/false", name],
                          capture_output=True, text=True)
    if made.returncode:
        subprocess.run([groupdel, name], capture_output=True)
        pytest.skip("useradd failed: %s" % made.stderr.strip())
    base = tempfile.mkdtemp(prefix="torchada-nonroot-")
    os.chmod(base, 0o755)
    try:
        account = pwd.getpwnam(name)
        user = types.SimpleNamespace(name=name, uid=account.pw_uid, gid=account.pw_gid,
                                     base=base, python=None)
        for python in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
            try:
                probe = run_as(user, ["-c", "import torchada._core.native_cache"], python=python)
            except PermissionError:  # the user may not even run it
                continue
            if probe.returncode == 0:
                user.python = python
                break
        if user.python is None:
            pytest.skip("no Python interpreter the test user can run (tried %s and "
                        "/usr/bin/python3)" % sys.executable)
        yield user
    finally:
        shutil.rmtree(base, ignore_errors=True)
        subprocess.run([userdel, name], capture_output=True)
        subprocess.run([groupdel, name], capture_output=True)


def run_as(user, argv, python=None, cwd=None):
    """``python -B <argv>`` as ``user`` (its group too), with HOME and XDG_CACHE_HOME under
    ``<user.base>/home`` and torchada's sources on PYTHONPATH."""
    home = os.path.join(user.base, "home")
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_CACHE_HOME": os.path.join(home, ".cache"),
           "PYTHONPATH": str(SRC), "PYTHONDONTWRITEBYTECODE": "1", "LC_ALL": "C.UTF-8"}
    return subprocess.run([python or user.python, "-B", *argv], env=env, cwd=cwd or user.base,
                          user=user.uid, group=user.gid, extra_groups=[user.gid],
                          capture_output=True, text=True, timeout=120)


def fresh_home(user):
    """``<user.base>/home`` and its ``.cache``, the user's, 0700, with no torchada cache."""
    for sub in ("home", os.path.join("home", ".cache")):
        path = os.path.join(user.base, sub)
        os.makedirs(path, exist_ok=True)
        os.chown(path, user.uid, user.gid)
        os.chmod(path, 0o700)
    cache = os.path.join(user.base, "home", ".cache", "torchada")
    shutil.rmtree(cache, ignore_errors=True)
    return cache
