"""Which aten operators the running torch_musa has no PrivateUse1 kernel for.

An operator needs a device kernel when it has a CPU kernel and no composite one (a
composite decomposes into other operators, which are checked themselves). torch_musa
registers its kernels from C++, so which of those it has comes from one of:

1. where nothing serves PrivateUse1 by a backend fallback (a real torch_musa registers
   none): the dispatcher's own registrations, which are the truth and cost nothing to read;
2. where a backend fallback decides (the simulator's, which runs exactly a release's
   operator table): that table (``table_ops``: the overloads a release registers, read
   from torch_musa's sources, ``torchada.testing.optable``);
3. a backend fallback and no table: nothing is known to be missing.

The sparse keys (``SparsePrivateUse1`` for COO, ``SparseCsrPrivateUse1`` for CSR/CSC/BSR/BSC)
are decided the same way, each against its own rows: an overload needs a kernel for one when
the CPU's sparse key (``SparseCPU`` / ``SparseCsrCPU``) has one (``needs_sparse_kernel``).

Names are the dispatcher's: ``aten::name.overload``, ``aten::name`` for the default overload.

The scan of the CPU and composite registrations (``needs_device_kernel``, ~2.5 ms) depends
only on the torch build and what torch_musa registered at import, so its answer is kept in
the user cache (``cpu_fallback/<key>.json``) keyed by both builds' identities (``_build_key``);
any doubt about the file (missing, unreadable, another key) rescans. The PrivateUse1
registrations are read live every time (0.2 ms): they are what changes between processes.
"""
import hashlib
import json
import os
import sys

COMPOSITE_KEYS = ("CompositeImplicitAutograd", "CompositeExplicitAutograd",
                  "CompositeExplicitAutogradNonFunctional")
# An operator with a CPU kernel only and never a composite one: its dispatch table tells
# whether PrivateUse1 has a backend fallback.
_PROBE_OP = "aten::special_airy_ai.out"
# The device's sparse keys and the CPU key whose kernels the fallback runs for each.
SPARSE_KEYS = {"SparsePrivateUse1": "SparseCPU", "SparseCsrPrivateUse1": "SparseCsrCPU"}


def table_ops(release, key="PrivateUse1"):
    """(overloads torch_musa ``release`` registers for ``key``, overloads its table knows,
    the release of the table used) as frozensets of dispatcher names and a string, or None
    where no operator table is available.

    The table module's interface (``torchada.testing.optable``, issue 21 parts 1-2):
    ``table_for(version)`` the release whose table models ``version``, ``load(release)`` that
    table, ``registered(table, key)`` its overloads for a dispatch key, ``table["torch_ops"]``
    every overload of the torch it was built for. An overload the table does not know (a
    newer torch's) is taken as registered, as the simulator takes it."""
    try:
        from torchada.testing import optable

        modelled = optable.table_for(release)
        table = optable.load(modelled)
        return (frozenset(optable.registered(table, key)),
                frozenset(table["torch_ops"]), modelled)
    except (ImportError, AttributeError, KeyError, LookupError, OSError, ValueError):
        return None


def _registrations(torch, key):
    return set(torch._C._dispatch_get_registrations_for_dispatch_key(key))


def needs_device_kernel(torch):
    """aten overloads with a CPU kernel and no composite one (cached per build)."""
    path = _cache_path(torch)
    if path is not None:
        try:
            with open(path, encoding="utf-8") as fh:
                return set(json.load(fh)["needs_device_kernel"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    needed = _scan_needs_device_kernel(torch)
    if path is not None:
        try:
            from torchada._core import files

            files.write_atomic(path, json.dumps({"needs_device_kernel": sorted(needed)}).encode(),
                               sync=False)
        except OSError:
            pass  # an unwritable cache costs a scan per process
    return needed


def _file_identity(path):
    try:
        st = os.stat(path)
    except (OSError, TypeError):
        return None
    return [path, st.st_size, st.st_mtime_ns]


def _build_key(torch):
    """What the CPU / composite registrations at activation depend on: torch's build (version,
    commit, its C++ libraries' files) and torch_musa's (version, package and extension files)."""
    torch_dir = os.path.dirname(torch.__file__)
    musa = sys.modules.get("torch_musa")
    musa_c = sys.modules.get("torch_musa._MUSAC")
    parts = [
        2,  # the format of this key and of the cached file
        torch.__version__, getattr(torch.version, "git_version", None),
        _file_identity(getattr(torch._C, "__file__", None)),
        _file_identity(os.path.join(torch_dir, "lib", "libtorch_cpu.so")),
        getattr(musa, "__version__", None), _file_identity(getattr(musa, "__file__", None)),
        _file_identity(getattr(musa_c, "__file__", None)),
    ]
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:32]


def _cache_path(torch):
    try:
        from torchada._core import native_cache

        # never made here: importing torch writes nothing (tests/areas/devices); the file
        # sits in the cache root once a build has made it, else every process scans
        return os.path.join(native_cache.trusted_dir(create=False),
                            "cpu_fallback-needs_device_kernel-%s.json" % _build_key(torch))
    except Exception:  # noqa: BLE001 - no trusted cache folder: scan every time
        return None


def _scan_needs_device_kernel(torch):
    composite = set()
    for key in COMPOSITE_KEYS:
        composite |= _registrations(torch, key)
    return {n for n in _registrations(torch, "CPU") if n.startswith("aten::")} - composite


def needs_sparse_kernel(torch, key):
    """aten overloads with a kernel for the CPU's sparse key matching ``key``. No composite is
    subtracted: a composite that fills a sparse slot is the dense one (``copy_``, ``clone``,
    the structured ops' default kernel), and torch registers no CompositeImplicitAutograd op
    with a sparse kernel (tests/areas/cpu_fallback/test_cpu_fallback_sparse.py checks). Read
    live, not cached: 0.3 ms for both keys at activation."""
    return {n for n in _registrations(torch, SPARSE_KEYS[key]) if n.startswith("aten::")}


def has_backend_fallback(torch, key="PrivateUse1"):
    try:
        table = torch._C._dispatch_dump_table(_PROBE_OP)
    except RuntimeError:
        return False
    return any(line.startswith(key + ":") and "[backend fallback]" in line
               for line in table.splitlines())


_answers = {}  # (release, key) -> the first answer, given before the fallback registered anything


def missing_ops(torch, release, key="PrivateUse1"):
    """(sorted names torch_musa ``release`` lacks for ``key``, where that answer comes from).
    The first answer is kept: later the fallback's own kernels are among the registrations."""
    if (release, key) not in _answers:
        _answers[(release, key)] = _missing_ops(torch, release, key)
    return _answers[(release, key)]


def _missing_ops(torch, release, key):
    live = _registrations(torch, key)
    needed = needs_device_kernel(torch) if key == "PrivateUse1" else needs_sparse_kernel(torch, key)
    if not has_backend_fallback(torch, key):
        return sorted(needed - live), "the dispatcher's %s registrations" % key
    table = table_ops(release, key) if release else None
    if table is not None:
        registered, known, modelled = table
        return (sorted((needed & known) - registered - live),
                "operator table of torch_musa %s%s" % (
                    modelled, "" if modelled == release else ", modelling %s" % release))
    return [], "no operator table for torch_musa %s, and a backend fallback serves every " \
               "operator" % release


def parse_names(torch, text):
    """(known names, unknown entries) of TORCHADA_CPU_FALLBACK_OPS: ``aten::op`` or
    ``aten::op.overload`` (``aten::`` may be left out)."""
    known, unknown = [], []
    for entry in (p.strip() for p in text.split(",")):
        if not entry:
            continue
        name = entry if "::" in entry else "aten::" + entry
        base, _, overload = name.partition(".")
        try:
            overloads = {s.overload_name for s in torch._C._jit_get_schemas_for_operator(base)}
        except RuntimeError:
            overloads = set()
        if (overload or "") in overloads:
            known.append(name)
        else:
            unknown.append(entry)
    return known, unknown
