"""The native cache's owner checks as a real non-root user (the suite runs as root, which
owns or may touch everything): a cache root of another user's, a folder above the root of
another user's, and a library another user placed in the user's own folder are refused;
the user's own placed library is accepted (the control), and so is root's (a cache a deploy
step built for every user: test_system_cache.py)."""
import json
import os
import textwrap

import pytest

from tests._users import fresh_home, non_root_user, run_as

from torchada._core import native_cache

_CHILD = textwrap.dedent("""
    import json, os, sys
    from torchada._core import native_cache
    root, action = sys.argv[1], sys.argv[2]
    out = {}
    try:
        folder = native_cache.trusted_dir("build", "k", root=root)
        out["folder"] = folder
        if action == "place":
            work = os.path.join(folder, "work")
            os.mkdir(work, 0o700)
            built = os.path.join(work, "mine.so")
            with open(built, "wb") as f:
                f.write(b"\\x7fELF" + b"m" * 4000)
            native_cache.place(built, os.path.join(folder, "mine.so"))
            os.rmdir(work)
        for name in ("mine.so", "planted.so"):
            if os.path.exists(os.path.join(folder, name)):
                out[name] = native_cache.check(os.path.join(folder, name))
    except native_cache.CacheRefused as exc:
        out["refused"] = str(exc)
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def user():
    with non_root_user("cache") as made:
        yield made


def _child(user, root, action="check"):
    proc = run_as(user, ["-c", _CHILD, root, action])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_cache_root_of_another_user_is_refused(user):
    cache = fresh_home(user)
    os.mkdir(cache, 0o755)
    os.chown(cache, 4242, 4242)  # neither the user nor root
    out = _child(user, cache)
    assert ("not using the cache folder %s: it belongs to user id 4242, neither this user (%d) "
            "nor root" % (cache, user.uid)) in out["refused"]


def test_a_folder_above_the_root_of_another_user_is_refused(user):
    fresh_home(user)
    foreign = os.path.join(user.base, "foreign")
    os.makedirs(foreign, exist_ok=True)
    os.chown(foreign, 4242, 4242)  # neither the user nor root
    os.chmod(foreign, 0o755)
    root = os.path.join(foreign, "torchada")
    out = _child(user, root)
    assert "lies in %s, which belongs to user id 4242" % foreign in out["refused"]


def test_a_library_another_user_placed_is_refused_and_the_users_own_accepted(user):
    cache = fresh_home(user)
    out = _child(user, cache, "place")
    folder = out["folder"]
    assert out["mine.so"] is None  # the control: its own library passes every check
    # another user's library with a matching digest beside it (planted here by root)
    planted = os.path.join(folder, "planted.so")
    with open(planted, "wb") as f:
        f.write(b"\x7fELF" + b"p" * 4000)
    native_cache.place(planted, planted)  # its digest written beside it
    os.chown(planted, 4242, 4242)
    os.chmod(planted, 0o755)  # readable, as a planted library would be
    out = _child(user, cache)
    assert out["planted.so"] == "belongs to another user or can be written by others"
    assert out["mine.so"] is None
