"""Fault injection on the native libraries torchada builds and loads (issue 16, parts 2 and 6):
cut-short files, a planted library in a cache others can write, a symbolic-link cache, a
read-only cache, a full disk, a build killed mid-way, 16 cold starts at once, a cache from
another machine type. Each case runs the real code in fresh interpreters on the simulated
device and ends with the program running, its numbers equal to math.log's (computed here,
independently), at most one warning, and nothing run from an untrusted or damaged file.

A planted library is a real shared object whose load-time constructor writes a marker file:
if the marker exists, torchada ran foreign code. The trusted caches are built once per module
(``warm``, once per session) and copied per test; only the cases about the simulator's
backend rebuild it.
"""
import concurrent.futures
import glob
import hashlib
import json
import math
import os
import platform
import shutil
import signal
import stat
import subprocess
import sys
import textwrap

import pytest

from tests._fresh import last_json, run_python, sim_env
from tests._releases import runnable_or_skip

IN_RANGE = runnable_or_skip("<2.11.0.post2")   # the compiled operator overrides apply
VALUES = [0.5, 1.0, 2.0, 10.0, 1e-3, 7.25]

# The user's program: log on the device (the compiled overrides' first call starts their
# build or load), then again once that is done; it reports the cache libraries it mapped.
PROGRAM = r"""
import json, os, torch, torchada
from torchada.areas import _op_overrides
x = torch.tensor(%r, dtype=torch.float64, device="cuda")
first = torch.log(x).cpu().tolist()
at_first = [l.strip() for l in str(torchada.status()).splitlines() if "cpp_overrides" in l]
# builds off the calling thread; named, not looked up: a rename fails here, loudly
_op_overrides.background().wait(600)
second = torch.log(x).cpu().tolist()
roots = [os.path.realpath(os.environ[k]) for k in ("XDG_CACHE_HOME", "TORCHADA_SIM_CACHE_DIR")]
mapped = {}
with open("/proc/self/maps") as maps:
    for line in maps:
        path = line.split()[-1]
        real = os.path.realpath(path) if path.startswith("/") else ""
        ours = any(real.startswith(r + os.sep) for r in roots) or "/torchada-sim-" in real
        if ours and real.endswith(".so") and os.path.exists(real):
            mapped[real] = os.path.getsize(real)
status = [l.strip() for l in str(torchada.status()).splitlines() if "cpp_overrides" in l]
print(json.dumps({"first": first, "second": second, "mapped": mapped, "status": status,
                  "at_first": at_first}))
""" % (VALUES,)

PLANTED_C = r"""
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void) {
    int fd = open(MARKER, O_WRONLY | O_CREAT, 0600);
    if (fd >= 0) close(fd);
}
"""


# ------------------------------------------------------------------ helpers
def caches(base):
    return {"XDG_CACHE_HOME": str(base / "xdg"), "TORCHADA_SIM_CACHE_DIR": str(base / "sim")}


def env_for(base, **extra):
    return sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE, **caches(base), **extra)


def run(base, *, env=None, check=True, **extra):
    return run_python(PROGRAM, env=env or env_for(base, **extra), check=check, timeout=900)


def torchada_warnings(stderr):
    """torchada's warnings: its logger's lines ("torchada: ...", "torchada simulator: ...")
    and Python warnings whose text starts with torchada."""
    return [line for line in stderr.splitlines()
            if line.startswith("torchada") or "Warning: torchada" in line]


def assert_right(proc, most_warnings=1):
    out = last_json(proc)
    for key in ("first", "second"):
        for got, value in zip(out[key], VALUES, strict=True):
            ref = math.log(value)  # independent of torch: the C library's log in double
            assert abs(got - ref) <= math.ulp(ref), (key, value, got, ref)
    warned = torchada_warnings(proc.stderr)
    assert len(warned) <= most_warnings, warned
    return out, warned


def libraries(root):
    return sorted(p for p in glob.glob(os.path.join(str(root), "**", "*.so"), recursive=True)
                  if "/.build-" not in p)


def plant(path, marker, tmp_path):
    """Replace ``path`` with a library that writes ``marker`` when loaded, and give it a
    digest that matches (whoever can write the folder can write that file too)."""
    source = tmp_path / "planted.c"
    source.write_text(PLANTED_C)
    built = tmp_path / "planted.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-DMARKER=\"%s\"" % marker, str(source), "-o",
                    str(built)], check=True)
    data = built.read_bytes()
    os.chmod(path, 0o700)
    with open(path, "wb") as f:
        f.write(data)
    with open(path + ".sha256", "w") as f:
        f.write("%s %d\n" % (hashlib.sha256(data).hexdigest(), len(data)))


def seed_sim(base, monkeypatch, **changes):
    """Give the simulator's own libraries, keyed for ``changes`` (variables; "machine": a
    machine type), the warm files, so a test about the overrides does not rebuild the
    simulator (its keys name the compiler and the machine too)."""
    from torchada.testing import _backend
    from torchada.testing._backend import runtime_libs

    key = runtime_libs._key  # a rename fails here, never a silent cold build
    with monkeypatch.context() as m:
        m.setenv("TORCHADA_SIM_CACHE_DIR", str(base / "sim"))
        here = [_backend.cache_dir()] + ([os.path.join(_backend.cache_root(), key())] if key else [])
        for name, value in changes.items():
            if name == "machine":
                m.setattr(platform, "machine", lambda: value)
            else:
                m.setenv(name, value)
        there = [_backend.cache_dir()] + ([os.path.join(_backend.cache_root(), key())] if key else [])
    for h, t in zip(here, there):
        if h != t and not os.path.exists(t):
            shutil.copytree(h, t)


def copy_warm(warm, tmp_path):
    base = tmp_path / "caches"
    for name in ("xdg", "sim"):
        shutil.copytree(warm / name, base / name, symlinks=True)
    return base


def compiler_wrapper(tmp_path):
    """A C++ compiler that is the real one, except on request: NOSPACE=1 makes the link
    step fail as a full disk does (the output cut to 4000 bytes, "No space left on
    device"); KILL_BUILD=1 cuts the output the same way and then SIGKILLs the Python
    process that runs the build (the first python above it that is not the compiler's own
    child interpreter, native._compile): the detached builder."""
    real = shutil.which("c++")
    wrapper = tmp_path / "bin" / "c++"
    wrapper.parent.mkdir()
    wrapper.write_text(textwrap.dedent("""\
        #!/bin/sh
        %s "$@" || exit $?
        case " $* " in *" -shared "*) ;; *) exit 0 ;; esac
        out=""; prev=""
        for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
        if [ "$NOSPACE" = 1 ] || [ "$KILL_BUILD" = 1 ]; then truncate -s 4000 "$out"; fi
        if [ "$NOSPACE" = 1 ]; then echo "ld: final link failed: No space left on device" >&2; exit 1; fi
        if [ "$KILL_BUILD" = 1 ]; then
            pid=$PPID
            while [ "$pid" -gt 1 ]; do
                # the compiler's own child interpreter (-X torchada=off) is passed over
                case "$(cat /proc/$pid/comm)" in python*)
                    tr '\\0' ' ' < /proc/$pid/cmdline | grep -q 'torchada=off' ||
                        { kill -9 "$pid"; sleep 5; exit 1; } ;; esac
                pid=$(cut -d' ' -f4 /proc/$pid/stat)
            done
        fi
        exit 0
        """ % real))
    wrapper.chmod(0o755)
    return str(wrapper)


# ------------------------------------------------------------------ the trusted caches, once
@pytest.fixture(scope="session")
def warm(tmp_path_factory):
    """Built once per test session: pytest-xdist's workers share the session's folder and
    take turns through a file lock, so the first builds and the others reuse it."""
    import filelock

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    base = shared / "native-warm"
    with filelock.FileLock(str(shared / "native-warm.lock")):
        if not (shared / "native-warm.ok").exists():
            shutil.rmtree(base, ignore_errors=True)
            base.mkdir(mode=0o700)
            proc = run(base)
            out, _ = assert_right(proc, most_warnings=0)
            assert any("compiled" in line for line in out["status"]), out["status"]
            assert libraries(base / "xdg") and libraries(base / "sim")
            (shared / "native-warm.ok").touch()
    return base


def test_warm_caches_hold_only_verified_private_files(warm):
    for path in libraries(warm / "xdg") + libraries(warm / "sim"):
        digest, size = open(path + ".sha256").read().split()
        data = open(path, "rb").read()
        assert hashlib.sha256(data).hexdigest() == digest and len(data) == int(size), path
        folder = os.path.dirname(path)
        while folder != str(warm):
            assert stat.S_IMODE(os.lstat(folder).st_mode) == 0o700, folder
            folder = os.path.dirname(folder)


# ------------------------------------------------------------------ the cases
def test_cut_short_libraries_are_rebuilt_never_loaded(warm, tmp_path):
    """Every cached library (the simulator's backend and runtime, the operator overrides)
    cut to 4000 bytes, as a build killed at exit or a full disk leaves it."""
    base = copy_warm(warm, tmp_path)
    cut = libraries(base / "xdg") + libraries(base / "sim")
    for path in cut:
        os.truncate(path, 4000)
    proc = run(base, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out, warned = assert_right(proc)
    assert out["mapped"] and all(size != 4000 for size in out["mapped"].values()), out["mapped"]
    assert all(os.path.getsize(p) > 4000 for p in cut)   # rebuilt in place
    assert any("compiled" in line for line in out["status"]), out["status"]
    assert warned and "it is rebuilt" in warned[0]


@pytest.mark.parametrize("cache", ["xdg", "sim"])
def test_planted_library_in_a_group_writable_cache_never_runs(warm, tmp_path, cache):
    """A library with the expected name (and a matching digest) in a cache folder others
    can write: the folder is refused, the planted code never runs, the program works."""
    base = copy_warm(warm, tmp_path)
    marker = tmp_path / "planted-ran"
    for path in libraries(base / cache):
        plant(path, marker, tmp_path)
    os.chmod(base / cache / ("torchada" if cache == "xdg" else "sim_backend"), 0o770)
    out, warned = assert_right(run(base))
    assert not marker.exists()
    assert len(warned) == 1 and "can be written by group or others" in warned[0], warned
    assert "chmod go-w" in warned[0]
    assert all(not p.startswith(str(base / cache)) for p in out["mapped"]), out["mapped"]


def test_symlinked_cache_is_refused(warm, tmp_path):
    base = copy_warm(warm, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    os.rename(base / "xdg" / "torchada", elsewhere / "torchada")
    os.symlink(elsewhere / "torchada", base / "xdg" / "torchada")
    marker = tmp_path / "planted-ran"
    for path in libraries(elsewhere):
        plant(path, marker, tmp_path)
    out, warned = assert_right(run(base))
    assert not marker.exists()
    assert len(warned) == 1 and "is a symbolic link" in warned[0], warned
    assert any("not built" in line for line in out["status"]), out["status"]


READ_ONLY_SITE = """
import errno, os, tempfile
_ROOT = os.path.realpath(os.environ["READ_ONLY_ROOT"]) + os.sep

def _refuse(path):
    real = os.path.realpath(os.fspath(path)) if not isinstance(path, int) else ""
    if (real + os.sep).startswith(_ROOT):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))

def _wrap(name, paths):
    original = getattr(os, name)
    def wrapper(*args, **kwargs):
        for i in paths:
            if i < len(args):
                _refuse(args[i])
        return original(*args, **kwargs)
    setattr(os, name, wrapper)

for _name in ("mkdir", "rmdir", "unlink", "remove", "chmod"):
    _wrap(_name, (0,))
for _name in ("rename", "replace", "link", "symlink"):
    _wrap(_name, (0, 1))
_open = os.open
def _ro_open(path, flags, *args, **kwargs):
    if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC):
        _refuse(path)
    return _open(path, flags, *args, **kwargs)
os.open = _ro_open
"""


def read_only(tmp_path, root):
    """A read-only mount of ``root``, as the kernel answers one (EROFS) for this process's
    writes; root ignores mode bits, so the answer is given in the child (sitecustomize)."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(READ_ONLY_SITE)
    return {"PYTHONPATH": str(site), "READ_ONLY_ROOT": str(root)}


def test_read_only_caches(warm, tmp_path):
    base = copy_warm(warm, tmp_path)
    # a cold read-only cache of the simulator: built for this process elsewhere, one warning
    cold_sim = tmp_path / "cold-sim"
    cold_sim.mkdir(mode=0o700)
    env = env_for(base, **read_only(tmp_path, cold_sim))
    env["TORCHADA_SIM_CACHE_DIR"] = str(cold_sim)
    out, warned = assert_right(run(base, env=env))
    assert len(warned) == 1 and "cannot be created" in warned[0] and str(cold_sim) in warned[0]
    assert os.listdir(cold_sim) == []
    # a cold read-only cache of the overrides: their fallback, one warning
    cold_xdg = tmp_path / "cold-xdg"
    (cold_xdg / "torchada").mkdir(parents=True, mode=0o700)
    env = env_for(base, **read_only(tmp_path, cold_xdg))
    env["XDG_CACHE_HOME"] = str(cold_xdg)
    out, warned = assert_right(run(base, env=env))
    assert len(warned) == 1 and str(cold_xdg) in warned[0], warned
    assert any("not built" in line for line in out["status"]), out["status"]
    assert os.listdir(cold_xdg / "torchada") == []
    # warm read-only caches: loaded and used as they are, no warning
    out, warned = assert_right(run(base, env=env_for(base, **read_only(tmp_path, base))),
                               most_warnings=0)
    assert any("compiled" in line for line in out["status"]), out["status"]


def test_no_space_left_while_linking(warm, tmp_path, monkeypatch):
    """The link step fails as on a full disk, its output cut short: the program runs on the
    fallback with one warning, nothing short is left where a loader looks, and the failure
    marker stops the next start from building again (one warning naming the marker and
    ``torchada build``) until ``torchada build`` (space freed) builds it; the start after
    that loads the library."""
    base = copy_warm(warm, tmp_path)
    cxx = compiler_wrapper(tmp_path)
    seed_sim(base, monkeypatch, CXX=cxx)
    out, warned = assert_right(run(base, CXX=cxx, NOSPACE="1"))
    assert len(warned) == 1 and "did not build" in warned[0], warned
    assert any("not built" in line for line in out["status"]), out["status"]
    assert all(os.path.getsize(p) != 4000 for p in libraries(base / "xdg"))
    (marker,) = glob.glob(str(base / "xdg" / "torchada" / "build" / "*" / "*.so.failed"))
    assert "exited with status 1" in open(marker).read()
    again = run(base, CXX=cxx)
    out, warned = assert_right(again)
    assert len(warned) == 1 and "failed to build before" in warned[0], warned
    assert marker in warned[0] and "`torchada build`" in warned[0], warned[0]
    assert "op_overrides.o" not in again.stdout + again.stderr  # no build started
    assert any("not built" in line for line in out["status"]), out["status"]
    forced = subprocess.run([sys.executable, "-m", "torchada", "build"], capture_output=True,
                            text=True, env=env_for(base, CXX=cxx), timeout=900)
    assert forced.returncode == 0, forced.stdout[-2000:] + forced.stderr[-2000:]
    assert not os.path.exists(marker)
    out, warned = assert_right(run(base, CXX=cxx), most_warnings=0)
    assert any("compiled" in line for line in out["status"]), out["status"]
    assert all(size != 4000 for size in out["mapped"].values()), out["mapped"]


def test_build_killed_mid_way_then_a_fresh_start(warm, tmp_path, monkeypatch):
    """The detached builder is killed (SIGKILL) while linking: the program that asked for the
    build survives on the fallback with one warning naming the builder's exit, no marker is
    written (a killed build is no failed build), nothing short is placed, and the next start
    builds, loads the library and sweeps the killed builder's temporary folder."""
    base = copy_warm(warm, tmp_path)
    cxx = compiler_wrapper(tmp_path)
    seed_sim(base, monkeypatch, CXX=cxx)
    out, warned = assert_right(run(base, CXX=cxx, KILL_BUILD="1"))
    assert len(warned) == 1 and "exited with status -%d" % signal.SIGKILL in warned[0], warned
    assert all(os.path.getsize(p) != 4000 for p in libraries(base / "xdg"))  # nothing short placed
    assert not glob.glob(str(base / "xdg" / "torchada" / "build" / "*" / "*.failed"))
    out, _ = assert_right(run(base, CXX=cxx), most_warnings=0)
    assert any("compiled" in line for line in out["status"]), out["status"]
    assert all(size != 4000 for size in out["mapped"].values()), out["mapped"]
    left = [name for folder in glob.glob(str(base / "xdg" / "torchada" / "build" / "*"))
            for name in os.listdir(folder) if name.startswith(".build-")]
    assert left == []   # the killed builder's temporary folder was swept


def test_sixteen_cold_starts_at_once_build_once(warm, tmp_path):
    base = copy_warm(warm, tmp_path)
    shutil.rmtree(base / "xdg")          # cold: the overrides are not built yet
    env = env_for(base, TORCHADA_CPP_OPS_VERBOSE="1")
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        procs = list(pool.map(lambda _: run(base, env=env), range(16)))
    compiled = 0
    for proc in procs:
        out, _ = assert_right(proc, most_warnings=0)
        assert any("compiled" in line for line in out["status"]), out["status"]
        # no first call waited on the compiler: each answered while the build ran elsewhere
        assert any("building in the background" in line for line in out["at_first"]), out
        compiled += ("op_overrides.o" in proc.stdout + proc.stderr)
    assert compiled == 0          # the compile ran in the detached builder, not in these
    (log,) = (base / "xdg").glob("torchada/build/torchada_op_overrides_*/build.log")
    text = log.read_text()
    assert text.count(": op_overrides started") == 1 and text.count("built after") == 1, text


def test_cache_from_another_machine_type_is_not_used(warm, tmp_path, monkeypatch):
    """One home, two machine types: what a node of the other type built (stood in for by a
    library that writes a marker, as this machine must never load it) is not used here.
    The other type is aarch64, or x86_64 when this machine is aarch64."""
    theirs_type = "x86_64" if platform.machine() == "aarch64" else "aarch64"
    base = copy_warm(warm, tmp_path)
    other = tmp_path / ("%s-site" % theirs_type)
    other.mkdir()
    (other / "sitecustomize.py").write_text(
        "import platform\nplatform.machine = lambda: %r\n" % theirs_type)
    seed_sim(base, monkeypatch, machine=theirs_type)
    stand_in = run(base, PYTHONPATH=str(other))
    out, _ = assert_right(stand_in, most_warnings=0)
    theirs = [p for p in out["mapped"] if p.startswith(str(base / "xdg"))]
    assert theirs
    marker = tmp_path / "planted-ran"
    for path in theirs:
        plant(path, marker, tmp_path)
    out, warned = assert_right(run(base), most_warnings=0)
    assert not marker.exists()
    assert any("compiled" in line for line in out["status"]), out["status"]
    assert not set(theirs) & set(out["mapped"])
