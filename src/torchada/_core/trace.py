"""The translation report: which CUDA calls torchada translated, how often, and from where.

``TORCHADA_TRACE=1`` counts every call of a CUDA API that torchada translated (a torch.cuda
name, ``Tensor.cuda``, or a device / backend argument spelled the CUDA way) and keeps the
first call site in the program (its direct caller is outside torch, torch_musa and
torchada; calls torch makes itself while serving the program are counted apart). It also
counts the unsupported stand-ins that were hit and the times
``torch.cuda.is_available()`` answered False to the program. ``TORCHADA_REPORT=<dir>``
(which implies the trace) writes one JSON file per process at exit, readable by its owner
only (it holds ``argv``), named after the host, the rank under torchrun, and the process
id (nodes writing into one shared folder never collide).

A string argument counts only when it is a device argument spelled the CUDA way (a device
``"cuda:1"``, a backend ``"nccl"`` / ``"cpu:gloo,cuda:nccl"``, a dispatch key ``"CUDA"``),
never because it contains "cuda" (a file path). A class installed under a CUDA name
(``torch.cuda.Stream``, ``Event``, ``CUDAGraph``) counts each construction.

Zero cost when off: ``ENABLED`` is decided once, when this module is first imported (by the
journal, at activation). When it is False nothing is wrapped and every installed callable
is the very object the area built. When it is True the journal wraps each callable an area
installs (``wrap``), at install time, in this one place.
"""

import atexit
import functools
import os
import re
import sys
import threading
import time
import types

from torchada._core import settings

TRACE_VAR = "TORCHADA_TRACE"
REPORT_VAR = "TORCHADA_REPORT"
IS_AVAILABLE = "torch.cuda.is_available"
SCHEMA = 1

# Reentrant: a finalizer or signal handler that calls a traced function while this thread
# counts (the garbage collector may run inside the locked region) must not deadlock.
_lock = threading.RLock()


def _new_lock_in_child():
    global _lock
    _lock = threading.RLock()  # a fork taken while another thread counted left it held


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)
_calls = {}  # api -> [program's calls, first site, calls torch made, the program line behind
             #         the first of those]
_unsupported = {}  # api -> [count, first site, message]
_unavailable = [0, None]  # is_available() answered False to user code: [count, first site]
# Sections areas add to the report (the CPU fallback, verify): name -> (snapshot() giving a
# JSON-able value, summary_lines() giving the lines `torchada run` prints).
_sections = {}
_started = time.time()


def _configure():
    report_dir = settings.read(REPORT_VAR)
    return settings.read(TRACE_VAR) or report_dir is not None, report_dir


ENABLED, REPORT_DIR = _configure()


# -- call sites -------------------------------------------------------------------------------
_internal = []     # [prefixes], kept once torch_musa is imported (then they are final)
_user_files = {}   # filename -> True when it is the user's (memoised: asked on every call)


def _internal_dirs():
    """Folders whose frames are not the user's: torchada (and its simulator), the boot
    module, torch, torch_musa."""
    if _internal:
        return _internal[0]
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs = [here + os.sep, os.path.join(os.path.dirname(here), "torchada_boot.py")]
    for name in ("torch", "torch_musa"):
        path = getattr(sys.modules.get(name), "__file__", None)
        if path:
            dirs.append(os.path.dirname(os.path.abspath(path)) + os.sep)
    if "torch_musa" in sys.modules:  # both known: keep (earlier, torch_musa may come later)
        _internal.append(tuple(dirs))
    return tuple(dirs)


# The bundled examples (`torchada run --example`) are programs, though they ship inside.
_EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "examples") + os.sep


def _is_user_file(filename):
    known = _user_files.get(filename)
    if known is None:
        if filename.startswith("<frozen"):
            known = False
        else:
            path = os.path.abspath(filename) if filename[:1] != "<" else filename
            known = not path.startswith(_internal_dirs()) or path.startswith(_EXAMPLES)
        if _internal:
            _user_files[filename] = known
    return known


def call_site(depth=2):
    """``file:line`` of the innermost frame outside torch / torch_musa / torchada, or None
    when every frame is theirs."""
    try:
        frame = sys._getframe(depth)
    except ValueError:
        return None
    while frame is not None:
        if _is_user_file(frame.f_code.co_filename):
            return "%s:%d" % (frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return None


def _caller_is_user(depth=2):
    try:
        return _is_user_file(sys._getframe(depth).f_code.co_filename)
    except ValueError:
        return False


# -- counting ---------------------------------------------------------------------------------
def _count(table, api, extra=None):
    with _lock:
        entry = table.get(api)
        if entry is None:
            entry = table[api] = [0, call_site(3)] + ([extra] if extra is not None else [])
        entry[0] += 1


def _translated(api):
    """One translated call of ``api``: the program's own (its direct caller is outside
    torch, torch_musa and torchada; libraries it uses count as the program) or one torch
    made itself (counted apart, so the program's numbers and sites stay its own)."""
    user = _caller_is_user(3)
    with _lock:
        entry = _calls.get(api)
        if entry is None:
            entry = _calls[api] = [0, None, 0, None]
        if user:
            if entry[1] is None:
                entry[1] = call_site(3)
            entry[0] += 1
        else:
            if entry[3] is None:
                entry[3] = call_site(3)  # the program's line torch was serving
            entry[2] += 1


def unsupported_hit(api, message):
    """An unsupported stand-in (or a CUDA argument MUSA does not take) was reached."""
    if ENABLED:
        _count(_unsupported, api, message)


# One comma-separated part of a device argument: a device, a device:backend pair or a
# backend, a dispatch key. A CUDA one names cuda / nccl / a *CUDA key.
_CUDA_PART = re.compile(r"cuda(?::\d+)?|nccl|(?:[A-Z][A-Za-z]*)?CUDA|\w+:nccl|cuda:\w+")
_ANY_PART = re.compile(r"\w+(?::\w+)?")
_DEVICE_STRINGS = {}  # str -> bool, memoised (programs pass a handful of device strings)
_DEVICE_STRINGS_MAX = 4096


def _device_string(value):
    known = _DEVICE_STRINGS.get(value)
    if known is None:
        parts = value.split(",")
        known = (any(_CUDA_PART.fullmatch(p) for p in parts)
                 and all(_ANY_PART.fullmatch(p) for p in parts))
        if len(_DEVICE_STRINGS) < _DEVICE_STRINGS_MAX:
            _DEVICE_STRINGS[value] = known
    return known


def _names_cuda(value):
    cls = value.__class__
    if cls is str:
        return ("cuda" in value or "CUDA" in value or "nccl" in value) and _device_string(value)
    if cls.__name__ == "device":  # torch.device kept as "cuda" (the fallback mode)
        return getattr(value, "type", None) == "cuda"
    return False


def _call_names_cuda(args, kwargs):
    for value in args:
        if _names_cuda(value):
            return True
    for value in kwargs.values():
        if _names_cuda(value):
            return True
    return False


def _api_name(owner, name):
    if isinstance(owner, types.ModuleType):
        return "%s.%s" % (owner.__name__, name)
    if isinstance(owner, type):
        if owner.__name__ in ("Tensor", "TensorBase"):
            return "torch.Tensor.%s" % name
        for public in ("torch", "torch.nn"):  # torch.device, torch.nn.Module, ...
            if getattr(sys.modules.get(public), owner.__name__, None) is owner:
                return "%s.%s.%s" % (public, owner.__name__, name)
        return "%s.%s.%s" % (owner.__module__, owner.__qualname__, name)
    return "%s.%s" % (type(owner).__name__, name)


def _is_cuda_api(api):
    return "cuda" in api.lower() or "nccl" in api.lower()


def _wrappable(value):
    if not callable(value) or isinstance(value, (types.ModuleType, property, staticmethod,
                                                 classmethod)):
        return False
    return getattr(value, "__torchada_unsupported__", None) is None  # stubs count themselves


def _countable_class(owner, api, value):
    """A class an area installs under a CUDA name in a module (torch.cuda.Stream). Never an
    exception class: ``except`` matches by the real class hierarchy, not isinstance."""
    return (isinstance(value, type) and isinstance(owner, types.ModuleType)
            and _is_cuda_api(api) and not issubclass(value, BaseException))


def counting_class(api, cls):
    """A stand-in for ``cls`` that counts each construction of ``api``. Calling it returns
    a ``cls`` instance; isinstance / issubclass answer as for ``cls``; a program's subclass
    of it is an ordinary subclass of ``cls``. ``cls`` itself when its metaclass cannot be
    extended (the call is then not counted)."""
    try:
        class Counting(type(cls)):
            def __call__(self, *args, **kwargs):
                if self is counted:
                    _translated(api)
                    return cls(*args, **kwargs)
                return super().__call__(*args, **kwargs)

            def __instancecheck__(self, obj):
                return isinstance(obj, cls) if self is counted else super().__instancecheck__(obj)

            def __subclasscheck__(self, sub):
                return issubclass(sub, cls) if self is counted else super().__subclasscheck__(sub)

        counted = Counting(cls.__name__, (cls,), {
            "__module__": cls.__module__, "__qualname__": cls.__qualname__,
            "__doc__": cls.__doc__, "__torchada_traced__": cls})
    except Exception:  # a final class, a metaclass taking other arguments: never fail an area
        return cls
    return counted


def counting(api, value, always):
    """``value`` behind a counter for ``api``: every call when ``always`` (a CUDA name),
    else only calls passing a CUDA-spelled device or backend."""
    if api == IS_AVAILABLE:
        def traced(*args, **kwargs):
            _translated(api)
            result = value(*args, **kwargs)
            if result is False and _caller_is_user():
                with _lock:
                    if _unavailable[1] is None:
                        _unavailable[1] = call_site(2)
                    _unavailable[0] += 1
            return result
    elif always:
        def traced(*args, **kwargs):
            _translated(api)
            return value(*args, **kwargs)
    else:
        def traced(*args, **kwargs):
            if _call_names_cuda(args, kwargs):
                _translated(api)
            return value(*args, **kwargs)
    try:
        functools.update_wrapper(traced, value)
    except (AttributeError, TypeError):  # a C callable without the usual attributes
        traced.__wrapped__ = value
    traced.__torchada_traced__ = value
    return traced


def wrap(owner, name, value):
    """What the journal installs for ``owner.name = value`` while tracing: a counting
    version of a callable, ``value`` itself for anything else."""
    if not _wrappable(value):
        return value
    api = _api_name(owner, name)
    if isinstance(value, type):
        return counting_class(api, value) if _countable_class(owner, api, value) else value
    traced = counting(api, value, _is_cuda_api(api))
    _same_script_builtin(owner, name, traced)
    if isinstance(owner, type) and not hasattr(type(value), "__get__"):
        return staticmethod(traced)  # a C callable on a class never bound ``self``
    return traced


def _same_script_builtin(owner, name, traced):
    """TorchScript resolves torch.zeros & co. by object identity in a table built once: a
    counting wrapper must map to the aten op of the function it replaces (a table built
    later finds it on ``torch`` by itself)."""
    builtins = sys.modules.get("torch.jit._builtins")
    table = getattr(builtins, "_builtin_table", None)
    if table is None or not isinstance(owner, types.ModuleType):
        return
    try:
        op = table.get(id(owner.__dict__.get(name)))
        if op is not None:
            table[id(traced)] = op
    except Exception:  # never fail an area over the trace
        pass


def wrap_new(cls, new):
    """A replaced constructor (``torch.device`` / ``torch.Generator``) behind a counter."""
    if not ENABLED:
        return new
    return counting("%s.%s" % ("torch", cls.__name__), new, False)


# -- reading it back --------------------------------------------------------------------------
def add_section(name, snapshot_fn, lines_fn):
    """An area's own part of the report: ``snapshot_fn()`` under ``name`` in the JSON,
    ``lines_fn()`` in the summary (both asked only when the report is read)."""
    _sections[name] = (snapshot_fn, lines_fn)


def remove_section(name):
    _sections.pop(name, None)


def _section_values(index):
    out = {}
    for name, fns in list(_sections.items()):
        try:
            out[name] = fns[index]()
        except Exception as exc:  # never lose the report over one section
            out[name] = "unavailable (%s: %s)" % (type(exc).__name__, exc)
    return out


def _rank():
    rank, local = os.environ.get("RANK"), os.environ.get("LOCAL_RANK")
    return rank, local, os.environ.get("WORLD_SIZE")


def snapshot():
    """The report as a dict (what the JSON file holds)."""
    with _lock:
        calls = {api: {"count": e[0], "first_site": e[1], "from_torch": e[2],
                       "from_torch_first_site": e[3]} for api, e in _calls.items()}
        unsupported = {api: {"count": e[0], "first_site": e[1], "message": e[2]}
                       for api, e in _unsupported.items()}
        unavailable = {"count": _unavailable[0], "first_site": _unavailable[1]}
    rank, local, world = _rank()
    versions = {name: getattr(sys.modules.get(name), "__version__", None)
                for name in ("torch", "torch_musa", "torchada")}
    boot = sys.modules.get("torchada_boot")
    decision = getattr(boot, "decision", None) or (None, None)
    return {
        "schema": SCHEMA, "pid": os.getpid(), "rank": rank, "local_rank": local,
        "world_size": world, "argv": list(sys.argv), "platform": decision[0],
        "versions": versions, "started": _started, "ended": time.time(),
        "translated_calls": sum(v["count"] for v in calls.values()),
        "translated": dict(sorted(calls.items(), key=lambda kv: -kv[1]["count"])),
        "unsupported": unsupported,
        "cuda_unavailable_answers": unavailable,
        **_section_values(0),
    }


def _host():
    """This host's name as a file-name part (letters, digits, '.', '-', '_' only)."""
    import socket  # at exit only: the trace is imported at every activation

    try:
        name = socket.gethostname()
    except OSError:
        name = ""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)[:64] or "unknown-host"


def report_name(pid=None):
    """``torchada-report-<host>-rank<R>-local<L>-<pid>.json`` under torchrun, else
    ``torchada-report-<host>-<pid>.json``."""
    rank, local, _ = _rank()
    pid = os.getpid() if pid is None else pid
    if rank is None and local is None:
        return "torchada-report-%s-%d.json" % (_host(), pid)
    return "torchada-report-%s-rank%s-local%s-%d.json" % (
        _host(), rank if rank is not None else "x", local if local is not None else "x", pid)


def write_report(directory):
    """Write this process's report into ``directory``; the path, or None after one line on
    stderr naming the folder (an exiting program is never failed over its report)."""
    import json

    from torchada._core import files

    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)  # a folder it makes is private
        path = os.path.join(directory, report_name())
        data = json.dumps(snapshot(), indent=1, sort_keys=True, default=str).encode()
        files.write_atomic(path, data, mode=0o600, sync=False)  # argv may hold secrets
        return path
    except Exception as exc:
        try:
            sys.stderr.write("torchada: the translation report was not written to %s (%s: %s); "
                             "set %s to a writable folder\n"
                             % (directory, type(exc).__name__, exc, REPORT_VAR))
        except Exception:
            pass
        return None


def summary_lines(platform=None, limit=5):
    """The lines ``torchada run`` prints: translated calls, unsupported paths hit, and the
    is_available() answer when it was False on MUSA."""
    data = snapshot()
    mine = {api: e for api, e in data["translated"].items() if e["count"]}
    lines = ["  translated: %d calls of %d CUDA APIs in the program" % (data["translated_calls"],
                                                                        len(mine))]
    for api, entry in list(mine.items())[:limit]:
        lines.append("    %-34s x%-6d first at %s" % (api, entry["count"], entry["first_site"]))
    if len(mine) > limit:
        lines.append("    ... %d more (TORCHADA_REPORT=<dir> writes them all)" % (len(mine) - limit))
    via = sum(e["from_torch"] for e in data["translated"].values())
    if via:
        lines.append("    and %d calls torch made itself while serving the program" % via)
    if data["unsupported"]:
        lines.append("  unsupported: %d paths hit" % len(data["unsupported"]))
        for api, entry in data["unsupported"].items():
            lines.append("    %s (x%d, first at %s)" % (entry["message"], entry["count"],
                                                        entry["first_site"] or "torch internals"))
    else:
        lines.append("  unsupported: none hit")
    answers = data["cuda_unavailable_answers"]
    if answers["count"] and (platform or data["platform"]) == "musa":
        lines.append("  note      : the program asked torch.cuda.is_available() and got False "
                     "(%d time(s), first at %s); TORCHADA_FORCE_CUDA_AVAILABLE=1 makes it follow "
                     "torch.musa.is_available() (torchada run sets it unless --cuda-unavailable)" % (answers["count"], answers["first_site"]))
    for extra in _section_values(1).values():
        lines += extra if isinstance(extra, list) else ["  %s" % extra]
    return lines


def reset():
    """Forget what was counted (tests)."""
    with _lock:
        _calls.clear()
        _unsupported.clear()
        _unavailable[:] = [0, None]


if ENABLED and REPORT_DIR is not None:
    atexit.register(write_report, REPORT_DIR)
