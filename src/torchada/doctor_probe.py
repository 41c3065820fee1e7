"""What ``torchada doctor`` learns inside a fresh interpreter (``PRELUDE`` is the child's
``-c`` code: it notes what the start-up hook did before anything of torchada is imported,
then calls ``main``): whether the start-up hook fired, what it decided, torch and
torch_musa as this interpreter imports them, the import finders, the native pieces, and
each area's state (for an area whose trigger is not imported: what its gate would say).

Prints one JSON object as its last line. Every step is guarded: a failure is reported as
data, never raised (the doctor must describe a broken install, not crash on it).
"""
import json
import os
import sys


def _one_line(exc):
    return "%s: %s" % (type(exc).__name__, " ".join(str(exc).split())[:300])


# Runs first in the child: importing torchada would itself activate the boot module.
PRELUDE = ("import sys; boot = sys.modules.get('torchada_boot'); "
           "fired = [list(boot.decision)] if boot is not None and boot.decision else []; "
           "from torchada.doctor_probe import main; main(fired)")


def _boot_state(out):
    import torchada_boot

    platform, reason = torchada_boot.activate()  # what it decides (idempotent)
    out["platform"], out["reason"] = platform, reason
    out["torch_musa_entry"] = torchada_boot.real_torch_musa_entry()
    # Whether torchada runs: the decision says musa even when activation then raised.
    out["activation_error"] = torchada_boot.error
    try:
        from torchada._core import activation

        out["activated"] = activation.registry is not None
    except Exception as exc:  # a broken install: the same import failed in the hook
        out["activated"] = False
        out["activation_error"] = out["activation_error"] or _one_line(exc)


def _versions(out, torch):
    from torchada._core.gate import dist_version

    musa = sys.modules.get("torch_musa")
    out["torch_musa"] = getattr(musa, "__version__", None) or dist_version("torch_musa")
    out["simulated"] = getattr(musa, "_sim", None) is not None
    out["musa_runtime"] = getattr(getattr(torch, "version", None), "musa", None)
    out["triton"] = dist_version("triton")
    out["mccl"] = None
    mccl = getattr(getattr(torch, "musa", None), "mccl", None)
    if mccl is not None and hasattr(mccl, "version"):
        try:
            out["mccl"] = ".".join(str(p) for p in mccl.version())
        except Exception as exc:
            out["mccl"] = "unknown (%s)" % _one_line(exc)
    try:
        out["devices"] = torch.musa.device_count() if hasattr(torch, "musa") else None
    except Exception as exc:
        out["devices"] = "error: %s" % _one_line(exc)


def _finders(out):
    out["meta_path"] = ["%s.%s" % (type(f).__module__, type(f).__qualname__)
                        if not isinstance(f, type) else "%s.%s" % (f.__module__, f.__qualname__)
                        for f in sys.meta_path]


def _native(out):
    """The compiled device prefilter shipped in the package, and the cache of native
    libraries built at run time (each verified by the trusted-cache module where present)."""
    state = {}
    try:
        from torchada.areas import _fastpath

        prefilter, why = _fastpath.load()
        state["prefilter"] = None if prefilter is not None else why
    except Exception as exc:
        state["prefilter"] = "unknown (%s)" % _one_line(exc)
    try:
        import torchada

        # the devices area notes "torch.device: <mode>; calls: <route>" (ctx.note)
        note = next((a.note for a in torchada.status().areas if a.name == "devices"), None)
        state["route"] = note.split("calls: ", 1)[1] if note and "calls: " in note else None
    except Exception as exc:
        state["route"] = "unknown (%s)" % _one_line(exc)
    from torchada._core import native_cache

    state.update(_cache_state(native_cache, None, "empty (native pieces are built on first use)"))
    try:
        system_root = native_cache.system_cache_root()
    except Exception as exc:
        state["system"] = {"cache": "not checked (%s)" % _one_line(exc)}
    else:
        state["system"] = _cache_state(native_cache, system_root,
                                       "none at %s (`torchada build --system` makes it)"
                                       % system_root, native_cache.SYSTEM_CACHE_SETTING)
    out["native"] = state


def _cache_state(native_cache, root, missing, setting="XDG_CACHE_HOME"):
    """One cache (the user's: ``root`` None; or the system's): its folder, libraries (each
    verified) and failure markers, or why it is missing or refused."""
    state = {"libraries": [], "failed_builds": []}
    try:
        found = native_cache.trusted_dir(root=root, create=False, setting=setting)
    except FileNotFoundError:
        state["cache"] = missing
        return state
    except native_cache.CacheRefused as exc:
        state["cache_refused"] = str(exc)
        return state
    except Exception as exc:
        state["cache"] = "not checked (%s)" % _one_line(exc)
        return state
    state["cache"] = found
    build = os.path.join(found, "build")
    for key in sorted(os.listdir(build)) if os.path.isdir(build) else ():
        folder = os.path.join(build, key)
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
            if name.endswith(".so"):
                path = os.path.join(folder, name)
                state["libraries"].append({"path": path, "problem": native_cache.check(path)})
            elif name.endswith(".so.failed"):  # a build's failure marker (same key)
                path = os.path.join(folder, name[:-len(".failed")])
                state["failed_builds"].append({"path": path,
                                               "reason": native_cache.failure(path)})
    return state


def _areas(out):
    import torchada
    from torchada._core import activation
    from torchada._core.gate import module_version

    report = torchada.status()
    out["active"] = report.active
    areas = []
    registry = activation.registry
    for area in report.areas:
        row = {"name": area.name, "state": area.state, "reason": area.reason,
               "triggers": list(area.triggers), "fixes": list(area.fixes)}
        if area.state == "pending" and registry is not None:
            record = next(r for r in registry.records if r.name == area.name)
            try:
                row["gate"] = record.gate.check(registry.platform, module_version("torch"),
                                                module_version("torch_musa"))
            except Exception as exc:
                row["gate"] = "gate check raised %s" % _one_line(exc)
        areas.append(row)
    out["areas"] = areas
    if registry is not None:
        out["torch_musa_error"] = registry.backend_error


def _operators(out):
    """The aten overloads this torch_musa has no kernel for (what the cpu_fallback area
    runs on the CPU), as the area found them."""
    if out.get("platform") != "musa" or "torch_musa" not in sys.modules:
        return
    import torch
    from torchada.areas._cpu_fallback import opset
    from torchada.areas.cpu_fallback import _release

    missing, source = opset.missing_ops(torch, _release())
    out["operators"] = {"missing": missing, "source": source, "release": _release()}


def probe(fired):
    """``fired``: [the start-up hook's decision] when it ran before any user code, else []."""
    out = {"python": sys.version.split()[0], "executable": sys.executable,
           "hook_fired": bool(fired), "hook_decision": fired[0] if fired else None}
    try:
        _boot_state(out)
    except Exception as exc:
        out["boot_error"] = _one_line(exc)
        return out
    try:
        import torch
    except BaseException as exc:  # a broken torch build may raise SystemExit
        if isinstance(exc, KeyboardInterrupt):
            raise
        out["torch_error"] = _one_line(exc)
        return out
    out["torch"] = torch.__version__
    for name, step in (("areas", _areas), ("versions", lambda o: _versions(o, torch)),
                       ("finders", _finders), ("native", _native), ("operators", _operators)):
        try:
            step(out)
        except Exception as exc:
            out["%s_error" % name] = _one_line(exc)
    return out


def main(fired):
    result = probe(fired)
    sys.stdout.flush()
    print(json.dumps(result, default=str))
