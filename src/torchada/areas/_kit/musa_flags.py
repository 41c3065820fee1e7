"""The flags torchada's native builds pass on a MUSA machine, cited from torch_musa's
extension loader (torch_musa v2.7.1 ``torch_musa/utils/musa_extension.py``; the newest
commit's is the same file): read, not run, as there is no MUSA toolkit here.

* Every MUSA build goes through torch_musa's ``load`` with ``with_musa=True`` (lines
  1346-1360), ``.cpp``-only ones too: only then does its ninja file add the MUSA include
  directory, torch_musa's own include paths (``include_paths``, lines 311-338: the ported
  torch headers under ``share/generated_cuda_compatible`` and the site-packages directory,
  so ``"torch_musa/csrc/..."`` resolves) and ``-lmusa_python -lmusart`` with their library
  directories (``_prepare_ldflags``, lines 876-911). With ``with_musa=None`` it infers
  False for a source list without ``.mu`` (line 1274).
* The JIT path adds no ``--offload-arch`` (``_write_ninja_file_to_build_library``, lines
  914-970), which ``MUSAExtension`` always adds (lines 440-448, from
  ``_get_musa_arch_flags``, lines 792-838): the same choice is made here, so a JIT-built
  kernel is compiled for the cards present (or ``TORCH_MUSA_ARCH_LIST``).
* ``REAL_MUSA_VERSION`` is a define of torch_musa's own CMake targets (CMakeLists.txt:
  385-387), not of its headers; none of the headers torchada includes changes a type or a
  declaration it uses with it, so none is passed.
"""
import os

# musa_extension.py:803, the arches its loader accepts.
SUPPORTED_ARCHES = ("10", "21", "22", "31", "32")
ARCH_LIST_VAR = "TORCH_MUSA_ARCH_LIST"  # torch_musa's own variable (line 805)


def _device_arches(torch):
    """mp_XY for each visible card, clamped to the newest arch this torch_musa was built
    for (musa_extension.py:815-828). [] when the cards cannot be asked."""
    musa = getattr(torch, "musa", None)
    try:
        built = [int(arch) for arch in musa.get_arch_list()]
        newest = max((mp // 10, mp % 10) for mp in built) if built else None
        arches = set()
        for index in range(musa.device_count()):
            capability = tuple(musa.get_device_capability(index))
            if newest is not None:
                capability = min(newest, capability)
            arches.add("%d%d" % capability[:2])
        return sorted(arches)
    except Exception:  # no such API in this release, no card: mcc's default target
        return []


def arch_flags(torch, environ=None):
    """``--offload-arch=mp_XY`` flags for mcc, as MUSAExtension chooses them."""
    environ = os.environ if environ is None else environ
    listed = environ.get(ARCH_LIST_VAR, "")
    arches = sorted({a.strip() for a in listed.split(";") if a.strip()}) if listed else \
        _device_arches(torch)
    return ["--offload-arch=mp_%s" % arch for arch in arches if arch in SUPPORTED_ARCHES]


def loader_kwargs(torch, device_sources):
    """The keyword arguments for torch_musa's ``load`` beyond sources and paths."""
    kwargs = {"with_musa": True}
    if device_sources:
        kwargs["extra_musa_cflags"] = arch_flags(torch)
    return kwargs
