"""`torchada build [--simulate] [--system]`: build ahead of time every native piece this
machine will need, so no program's call ever waits on a compiler (and production hosts need
none). ``--system`` builds into the system cache every user reads (a deploy step run as root;
``native_cache.system_cache_root``, docs/security.md).

Pieces: the simulator's backend (with --simulate or TORCHADA_SIMULATE_MUSA), then, after
torch is imported (torchada decides what this machine needs the way a program's start
does), the compiled operator overrides (where an operator_fixes unit that uses them
applied) and the graph executable extension (where graph executable rotation applied).
One line per piece: built / already built / not needed here (why) / FAILED: reason; the
exit status is 1 when a piece failed, naming it.
"""
import os
import subprocess
import sys
import time

USAGE = """usage: torchada build [--simulate] [--system]

Builds ahead of time what this machine needs at run time (the compiled operator
overrides, the graph executable extension; the simulator's backend with --simulate or
TORCHADA_SIMULATE_MUSA=1). --system builds into the system cache that every user reads
after their own (TORCHADA_SYSTEM_CACHE_DIR, default /var/cache/torchada): run it as root
at deploy time or in an image. Exit status 1 names what failed."""
ARGS = ("--simulate", "--system")


class Piece:
    def __init__(self, name):
        self.name = name
        self.outcome = None
        self.failed = False

    def line(self):
        return "%-32s %s" % (self.name + ":", self.outcome)


def _from_cache(module):
    """Whether the kit's builder found ``module`` built rather than compiling it now."""
    from torchada.areas._kit import extension_builder

    return module.__name__ not in extension_builder.COMPILED


def _timed(piece, build):
    """Run ``build`` (returns the loaded module); the outcome says whether it compiled."""
    started = time.perf_counter()
    try:
        module = build()
    except Exception as exc:
        piece.failed = True
        piece.outcome = "FAILED: %s" % " ".join(str(exc).split())[:400]
        return
    seconds = time.perf_counter() - started
    piece.outcome = "already built" if _from_cache(module) else "built (%.1f s)" % seconds


def _simulator_backend():
    """Built in a child without the simulation switched on: in this process importing torch
    would already load (and build) the backend before the piece could be reported."""
    piece = Piece("simulator backend")
    env = {k: v for k, v in os.environ.items() if k != "TORCHADA_SIMULATE_MUSA"}
    env["TORCHADA_PLATFORM"] = "off"
    proc = subprocess.run([sys.executable, "-X", "torchada=off", "-c", _BACKEND_CHILD],
                          env=env, capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    piece.failed = proc.returncode != 0
    if lines:
        piece.outcome = lines[-1]
    else:  # the child died before it could say why
        piece.outcome = "FAILED: exit %d: %s" % (proc.returncode, " ".join(
            (proc.stderr.strip().splitlines() or ["no output"])[-1:])[:400])
    return piece


_BACKEND_CHILD = """
import sys, time
from torchada._core import native_cache
from torchada.testing._backend import runtime_libs
from torchada.testing import _backend
try:
    path = _backend.library_path()
    if native_cache.check(path) is None:
        print("already built")
        sys.exit(0)
    started = time.perf_counter()
    placed = [_backend.cached_library(), *runtime_libs.build().values()]
    root = _backend.cache_root()
    outside = [p for p in placed if not p.startswith(root + "/")]
    if outside:  # refused: built for this process only
        raise RuntimeError("the cache %s was refused (see the warning above); built only in %s"
                           % (root, outside[0]))
    print("built (%.1f s)" % (time.perf_counter() - started))
except Exception as exc:
    print("FAILED: " + " ".join(str(exc).split())[:400])
    sys.exit(1)
"""


def _system_cache_problem():
    """None when this process may build into the system cache; else the error line."""
    from torchada._core import native_cache

    root = native_cache.system_cache_root()
    fix = ("run it as root (sudo torchada build --system) at deploy time or in the image, or "
           "set %s to a folder you may write" % native_cache.SYSTEM_CACHE_SETTING)
    try:
        folder = native_cache.trusted_dir(root=root, setting=native_cache.SYSTEM_CACHE_SETTING)
    except native_cache.CacheRefused as exc:
        return "torchada build --system: %s; %s" % (str(exc).rstrip("."), fix)
    if not os.access(folder, os.W_OK | os.X_OK):
        return ("torchada build --system: this user (id %d) cannot write the system cache %s; "
                "%s" % (os.geteuid(), folder, fix))
    return None


def _status_lines(unit):
    import torchada

    return [line.strip() for line in str(torchada.status()).splitlines() if unit in line]


def _why_not(units, platform_musa):
    if not platform_musa:
        return "not needed here (torch has no musa device: not a MUSA machine)"
    reasons = []
    for unit in units:
        lines = _status_lines(unit)
        reasons.append(lines[0] if lines else "%s not applied" % unit)
    return "not needed here (%s)" % "; ".join(reasons)


def _op_overrides(platform_musa):
    piece = Piece("compiled operator overrides")
    if not platform_musa:
        piece.outcome = _why_not((), False)
        return piece
    from torchada.areas._op_overrides import shared

    if not shared.UNITS:
        piece.outcome = _why_not(("operator_fixes.cpp_overrides",
                                  "operator_fixes.isfinite_async"), True)
        return piece
    _timed(piece, lambda: shared.build_extension(force=True))  # retries a failed build
    return piece


def _graph_exec(platform_musa):
    piece = Piece("graph executable extension")
    if not platform_musa:
        piece.outcome = _why_not((), False)
        return piece
    from torchada.areas._graph_exec import extension, install

    if install.active() is None:
        piece.outcome = _why_not(("graphs.exec_rotation", "exec_rotation:"), True)
        return piece
    _timed(piece, lambda: extension.load_module(force=True))  # retries a failed build
    return piece


def _simulating():
    from torchada._core.settings import read

    return read("TORCHADA_SIMULATE_MUSA") is not None  # "on" / "force"; off and unset: None


def _rerun_simulated(argv):
    """The start-up hook decided at interpreter start: simulate in a fresh interpreter."""
    from torchada.testing import real_torch_musa_present

    if real_torch_musa_present():
        print("torchada build: a real torch_musa is installed; --simulate would shadow it "
              "(set TORCHADA_SIMULATE_MUSA=force to simulate anyway)", file=sys.stderr)
        return 2
    env = dict(os.environ, TORCHADA_SIMULATE_MUSA="1")
    return subprocess.call([sys.executable, "-m", "torchada", "build"] + argv, env=env)


def main(argv):
    argv = list(argv)
    if "-h" in argv or "--help" in argv:
        print(USAGE)
        return 0
    unknown = [arg for arg in argv if arg not in ARGS]
    if unknown:
        print("torchada build: unknown argument %r\n\n%s" % (unknown[0], USAGE), file=sys.stderr)
        return 2
    if "--simulate" in argv and not _simulating():
        return _rerun_simulated([arg for arg in argv if arg != "--simulate"])
    if "--system" in argv:
        from torchada._core import native_cache

        problem = _system_cache_problem()
        if problem is not None:
            print(problem, file=sys.stderr)
            return 1
        os.environ[native_cache.SYSTEM_BUILD_VAR] = "1"  # this process and its children
        print("building into the system cache %s" % native_cache.system_cache_root(), flush=True)
    pieces = []
    if _simulating():
        pieces.append(_simulator_backend())
        print(pieces[-1].line(), flush=True)
        if pieces[-1].failed:
            print("torchada build: failed: %s" % pieces[-1].name, file=sys.stderr)
            return 1
    try:
        import torch
    except ImportError as exc:
        print("torchada build: torch is not importable (%s); install torch first" % exc,
              file=sys.stderr)
        return 1
    platform_musa = hasattr(torch, "musa")
    for make in (_op_overrides, _graph_exec):
        pieces.append(make(platform_musa))
        print(pieces[-1].line(), flush=True)
    failed = [piece.name for piece in pieces if piece.failed]
    if failed:
        print("torchada build: failed: %s" % ", ".join(failed), file=sys.stderr)
        return 1
    return 0
