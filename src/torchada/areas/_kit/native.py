"""torchada's own JIT-built extensions: built once per source and torch, under the shared lock.

Every native piece (the graph-executable primitive, the compiled operator overrides) builds
here: its name carries a digest of its sources and torch's version, so a changed source or
another torch gets its own build; the build runs under ``jit_lock.build_lock`` (an flock the
kernel drops when its holder dies: a killed build never blocks the next process, and
concurrent processes compile once); ``TORCHADA_CPP_OPS_VERBOSE=1`` prints the build log.
On MUSA, sources ending in ``.mu`` are compiled by torch_musa's extension loader with the
toolkit's ``mcc``; on the simulator the host compiler builds the ``.cpp`` sources only.
"""
import hashlib
import os
import sys

VERBOSE_VAR = "TORCHADA_CPP_OPS_VERBOSE"


class NativeUnavailable(RuntimeError):
    """An extension could not be built or loaded; the message says why."""


def simulated():
    return getattr(sys.modules.get("torch_musa"), "_sim", None) is not None


def build_name(prefix, sources, torch_version):
    digest = hashlib.sha256(torch_version.encode())
    for source in sources:
        with open(source, "rb") as f:
            digest.update(f.read())
    return "%s_%s" % (prefix, digest.hexdigest()[:12])


def _musa_flags():
    from torchada.porting import toolkit

    includes = toolkit.musa_include_paths()
    libraries = ["-L%s" % path for path in toolkit.musa_library_paths()]
    return includes, libraries + ["-lmusart"]


def _loader(has_device_sources):
    """torch_musa's ``load`` for ``.mu`` sources, else torch's. The cpp_extension area may
    wrap torch's with this same lock: take the original, or the second flock of one file in
    this process would wait for ever."""
    if has_device_sources:
        from torch_musa.utils.musa_extension import load

        return load
    from torch.utils import cpp_extension

    return getattr(cpp_extension.load, "__torchada_wrapped__", cpp_extension.load)


def build(prefix, sources, what, headers=(), name=None, musa=True):
    """The loaded extension module built from ``sources`` (absolute paths). ``headers`` are
    hashed into the name too; ``name`` overrides the derived one; ``musa=False`` builds
    without the MUSA toolkit's headers and runtime. Raises NativeUnavailable naming ``what``
    and the reason."""
    import torch

    from torchada._core.files import private_dir
    from torchada.porting.jit_lock import build_lock

    name = name or build_name(prefix, list(sources) + list(headers), torch.__version__)
    on_simulator = simulated()
    includes, ldflags = ([], []) if on_simulator or not musa else _musa_flags()
    includes = includes + sorted({os.path.dirname(h) for h in headers})
    device = any(s.endswith(".mu") for s in sources)
    try:
        load = _loader(device)
        build_directory = private_dir("build", name, create=True)
        with build_lock(name, build_directory):
            return load(name, list(sources), build_directory=build_directory,
                        extra_include_paths=includes, extra_ldflags=ldflags,
                        verbose=os.environ.get(VERBOSE_VAR) == "1")
    except Exception as exc:  # a compiler, header or loader failure: the caller reports it
        first = str(exc).strip().splitlines()[:1] or [type(exc).__name__]
        raise NativeUnavailable("%s did not build: %s: %s (TORCHADA_CPP_OPS_VERBOSE=1 shows "
                                "the build log)" % (what, type(exc).__name__, first[0][:300])
                                ) from exc
