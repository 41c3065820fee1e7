"""The system cache a deploy step builds for every user (``torchada build --system``): root's
folders and libraries, writable by nobody else, are read by any user after their own cache,
without building; a system cache others can write is refused, naming the folder and the fix;
``torchada build --system`` by a user who may not write it names the folder and the fix.

The user side runs as a real non-root user (created here; the suite runs as root). That
user cannot run the suite's interpreter (it lives under /root) and the system Python has no
torch, so the user side loads a plain C library through native_cache; the torch side (the
simulator's backend and the compiled operator overrides found in the system cache by a
process whose own cache is empty) runs as root in the last test."""
import json
import os
import shutil
import stat
import textwrap

import pytest

from tests._fresh import SRC, clean_env, last_json, run_argv, run_python, sim_env
from tests._users import fresh_home, non_root_user, run_as

from torchada._core import native_cache

# Root's side: place a real library (the host C compiler's) the way `torchada build --system`
# places everything (TORCHADA_BUILD_FOR_SYSTEM=1: the system cache is where this process builds).
_ROOT_PLACES = textwrap.dedent("""
    import os, subprocess, sys
    from torchada._core import native_cache
    def build_into(work):
        source = os.path.join(work, "k.c")
        with open(source, "w") as f:
            f.write("int answer(void) { return 7; }\\n")
        out = os.path.join(work, "libk.so")
        subprocess.run(["cc", "-shared", "-fPIC", source, "-o", out], check=True)
        return out
    print(native_cache.fetch(native_cache.trusted_dir("build", "k"), "libk.so", build_into,
                             "the test library"))
""")

# The user's side: what a torchada loader does (its own cache, then the system's, else build
# into its own), then a load through the checked open file.
_USER_LOADS = textwrap.dedent("""
    import ctypes, json, os, subprocess, sys
    os.environ["TORCHADA_SYSTEM_CACHE_DIR"] = sys.argv[1]
    from torchada._core import native_cache
    built = []
    def build_into(work):
        built.append(work)
        source = os.path.join(work, "k.c")
        with open(source, "w") as f:
            f.write("int answer(void) { return 8; }\\n")
        out = os.path.join(work, "libk.so")
        subprocess.run(["cc", "-shared", "-fPIC", source, "-o", out], check=True)
        return out
    path = native_cache.find(("build", "k"), "libk.so")
    if path is None:
        path = native_cache.fetch(native_cache.trusted_dir("build", "k"), "libk.so",
                                  build_into, "the test library")
    with native_cache.opened(path) as loadable:
        answer = ctypes.CDLL(loadable).answer()
    print(json.dumps({"path": path, "answer": answer, "built": len(built)}))
""")


@pytest.fixture(scope="module")
def user():
    with non_root_user("sys") as made:
        yield made


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def _root_places(system):
    shutil.rmtree(system, ignore_errors=True)
    env = clean_env(PYTHONPATH=str(SRC), TORCHADA_SYSTEM_CACHE_DIR=system,
                    TORCHADA_BUILD_FOR_SYSTEM="1")
    return run_python(_ROOT_PLACES, env=env).stdout.strip().splitlines()[-1]


def _user_loads(user, system):
    proc = run_as(user, ["-c", _USER_LOADS, system])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def test_a_user_loads_what_root_placed_in_the_system_cache_without_building(user):
    system = os.path.join(user.base, "system")
    library = _root_places(system)
    assert library == os.path.join(system, "build", "k", "libk.so")
    for folder in (system, os.path.join(system, "build"), os.path.dirname(library)):
        assert os.lstat(folder).st_uid == 0 and _mode(folder) == 0o755, folder
    assert _mode(library) == 0o755 and _mode(library + ".sha256") == 0o644
    own_cache = fresh_home(user)
    out, err = _user_loads(user, system)
    assert out == {"path": library, "answer": 7, "built": 0}, err
    assert not os.path.exists(own_cache)  # nothing built, nothing created in its own cache
    assert "not using" not in err


def test_the_users_own_cache_comes_first(user):
    system = os.path.join(user.base, "system")
    _root_places(system)
    fresh_home(user)
    os.chmod(os.path.join(system, "build"), 0o700)  # the user cannot reach root's library
    first, _ = _user_loads(user, system)
    assert first["built"] == 1 and first["answer"] == 8  # so it built its own
    os.chmod(os.path.join(system, "build"), 0o755)
    again, _ = _user_loads(user, system)
    assert again == dict(first, built=0)  # its own, found first, though root's is readable now
    assert again["path"].startswith(os.path.join(user.base, "home", ".cache", "torchada"))


def test_a_system_cache_others_can_write_is_refused_naming_the_folder_and_the_fix(user):
    system = os.path.join(user.base, "system")
    _root_places(system)
    fresh_home(user)
    level = os.path.join(system, "build")
    os.chmod(level, 0o777)  # anyone could plant a library and its digest there
    out, err = _user_loads(user, system)
    assert out["built"] == 1 and out["answer"] == 8  # not loaded from there: its own build
    assert ("torchada: not using the cache folder %s: it can be written by group or others "
            "(mode 777). Run `chmod go-w %s`, or set TORCHADA_SYSTEM_CACHE_DIR to a private "
            "folder; the system cache is not used" % (level, level)) in err


_BUILD_SYSTEM = textwrap.dedent("""
    import os, sys
    os.environ["TORCHADA_SYSTEM_CACHE_DIR"] = sys.argv[1]
    from torchada.cli import main
    sys.exit(main(["build", "--system"]))
""")


def test_build_system_as_a_user_who_may_not_write_it_names_the_folder_and_the_fix(user):
    fresh_home(user)
    existing = os.path.join(user.base, "system-ro")
    os.makedirs(existing, exist_ok=True)
    os.chmod(existing, 0o755)  # root's
    proc = run_as(user, ["-c", _BUILD_SYSTEM, existing])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    fix = ("run it as root (sudo torchada build --system) at deploy time or in the image, or "
           "set TORCHADA_SYSTEM_CACHE_DIR to a folder you may write")
    assert proc.stderr.strip() == ("torchada build --system: this user (id %d) cannot write "
                                   "the system cache %s; %s" % (user.uid, existing, fix))
    missing = os.path.join(user.base, "system-missing")
    proc = run_as(user, ["-c", _BUILD_SYSTEM, missing])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.strip().startswith("torchada build --system: torchada: not using the "
                                          "cache folder %s: it cannot be created (Permission "
                                          "denied)" % missing)
    assert proc.stderr.strip().endswith(fix)
    assert not os.path.exists(missing)


_FRESH_PROCESS = """
import json
from torchada.areas._op_overrides import shared
torch.log(torch.ones(1, device="cuda"))
assert shared.UNITS and shared.background().wait(600), "the overrides did not load"
torch.log(torch.ones(1, device="cuda"))
with open("/proc/self/maps") as f:
    maps = sorted({line.split(None, 5)[-1].strip() for line in f if ".so" in line})
print(json.dumps({"maps": maps}))
"""


def test_root_builds_with_system_and_a_process_with_an_empty_cache_loads_from_it(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the default deploy step runs as root; this run has uid %d" % os.geteuid())
    system = str(tmp_path / "system")
    builder_home, fresh = tmp_path / "builder", tmp_path / "fresh"
    for home in (builder_home, fresh):
        home.mkdir(mode=0o700)
    built = run_argv(["-m", "torchada", "build", "--simulate", "--system"], timeout=900,
                     env=clean_env(XDG_CACHE_HOME=str(builder_home),
                                   TORCHADA_SYSTEM_CACHE_DIR=system))
    assert "building into the system cache %s" % system in built.stdout
    for piece in ("simulator backend:", "compiled operator overrides:"):
        line = [l for l in built.stdout.splitlines() if l.startswith(piece)]
        assert line and line[0].split(":", 1)[1].split()[0] == "built", built.stdout
    assert not (builder_home / "torchada" / "build").exists()  # all of it went to the system
    proc = run_python("import torch, torchada\n" + _FRESH_PROCESS, timeout=600,
                      env=sim_env(XDG_CACHE_HOME=str(fresh), TORCHADA_SYSTEM_CACHE_DIR=system))
    mapped = last_json(proc)["maps"]
    ours = [m for m in mapped if os.path.basename(m).startswith(
        ("musa_sim_backend", "torchada_op_overrides", "libmusart", "libmccl"))]
    assert len(ours) == 4, mapped
    assert all(m.startswith(system + "/") for m in ours), ours
    assert not [p for p in fresh.rglob("*.so")], "the fresh process built: %s" % list(
        fresh.rglob("*.so"))
    # doctor reports the system cache beside the user's: its folder and every library in it
    # verified (counted here from the folder itself)
    doctor = run_argv(["-m", "torchada", "doctor", "--json"], timeout=600, check=False,
                      env=sim_env(XDG_CACHE_HOME=str(fresh), TORCHADA_SYSTEM_CACHE_DIR=system))
    findings = [f["text"] for f in json.loads(doctor.stdout)["findings"]
                if f["topic"] == "native" and f["level"] == "ok"]
    placed = sorted(str(p) for p in (tmp_path / "system").glob("build/*/*.so"))
    assert placed
    assert ("system cache %s: %d libraries, %d verified" % (system, len(placed), len(placed))
            in findings), findings
