"""Build-time porting: torch's BuildExtension made to port and compile for MUSA.

Used by torchada.areas.cpp_extension (which installs it on torch.utils.cpp_extension
through the journal). The compiler is ``mcc`` (``toolkit``); a ``.cu`` file keeps its name
and is compiled with ``-x musa`` (evidence: torch_musa/utils/musa_extension.py); flags come
from ``flags``; JIT builds lock in ``jit_lock``.
"""
import logging
import os

from .toolkit import find_mcc

logger = logging.getLogger("torchada")

MUSA_SOURCE_EXTS = (".cu", ".mu")
_PORTED = set()


_PORTED = set()


def project_dirs(extension, project_root, exclude=None):
    """Project-local directories to port for one extension: the directories of its
    sources (always eligible: they were given explicitly) and its include_dirs that lie
    inside ``project_root`` and are not excluded by TORCHADA_EXCLUDE_DIRS (an include
    directory of a vendored dependency is left alone when its path or a component of it
    is excluded)."""
    from .collect import exclusions_from_env

    ex_paths, ex_names = exclude if exclude is not None else exclusions_from_env()
    root = os.path.realpath(project_root)
    dirs = []
    for src in extension.sources:
        dirs.append(os.path.dirname(os.path.abspath(src)))
    for inc in extension.include_dirs or ():
        real = os.path.realpath(os.path.abspath(inc))
        rel_parts = os.path.relpath(real, root).split(os.sep)
        if any(real == p or real.startswith(p + os.sep) for p in ex_paths):
            continue
        if any(part in ex_names for part in rel_parts):
            continue
        dirs.append(real)
    out = []
    for d in dirs:
        real = os.path.realpath(d)
        if (real == root or real.startswith(root + os.sep)) and os.path.isdir(real) \
                and real not in out:
            out.append(real)
    # drop directories nested in another listed one
    out.sort()
    kept = []
    for d in out:
        if not any(d.startswith(k + os.sep) for k in kept):
            kept.append(d)
    return kept


def port_extension_sources(extension, project_root):
    from .walker import port_paths

    dirs = [d for d in project_dirs(extension, project_root) if d not in _PORTED]
    if not dirs:
        return None
    report = port_paths(dirs)
    _PORTED.update(dirs)
    for path, line, f in report.findings():
        logger.warning("%s:%d: %s: %s", path, line, f.kind, f.message)
    for path, reason in report.not_ported:
        logger.warning("torchada: not ported %s: %s", path, reason)
    if report.changed:
        logger.info("torchada: ported %d CUDA source files to MUSA in place "
                    "(torchada port --revert %s restores them)",
                    len(report.changed), " ".join(dirs))
    return report


def make_build_extension(base):
    """A BuildExtension subclass of torch's ``base`` that ports and compiles for MUSA."""
    from setuptools.command.build_ext import build_ext

    class BuildExtension(base):
        """torch.utils.cpp_extension.BuildExtension on MUSA (installed by torchada):
        ports project-local CUDA sources in place, compiles .cu/.mu with mcc, C++ with the
        host compiler, links the MUSA libraries."""

        def build_extensions(self):
            from torchada.utils.cpp_extension import stable_overlay_dirs

            project_root = os.getcwd()
            overlay = stable_overlay_dirs()
            for ext in self.extensions:
                port_extension_sources(ext, project_root)
                _add_define(ext, "TORCH_API_INCLUDE_EXTENSION_H")
                _add_define(ext, "TORCH_EXTENSION_NAME=%s" % ext.name.split(".")[-1])
                ext.include_dirs = overlay + [d for d in ext.include_dirs if d not in overlay]
            for suffix in (".cu", ".cuh", ".mu", ".muh"):
                if suffix not in self.compiler.src_extensions:
                    self.compiler.src_extensions.append(suffix)
            original = self.compiler._compile
            compiler = self.compiler

            def _compile(obj, src, ext, cc_args, extra_postargs, pp_opts):
                post = extra_postargs
                if os.path.splitext(src)[1] in MUSA_SOURCE_EXTS:
                    mcc_flags = post.get("mcc", []) if isinstance(post, dict) else list(post or [])
                    cmd = find_mcc()
                    if src.endswith(".cu"):
                        cmd += ["-x", "musa"]
                    cmd += list(pp_opts) + ["-c", src, "-o", obj, "-fPIC"] + list(mcc_flags)
                    if not any(f.startswith("-std") for f in mcc_flags):
                        cmd.append("-std=c++17")
                    compiler.spawn(cmd)
                    return
                cflags = post.get("cxx", []) if isinstance(post, dict) else list(post or [])
                if not any(f.startswith("-std") for f in cflags):
                    cflags = cflags + ["-std=c++17"]
                original(obj, src, ext, cc_args, cflags, pp_opts)

            compiler._compile = _compile
            try:
                build_ext.build_extensions(self)
            finally:
                compiler._compile = original

    BuildExtension.__qualname__ = BuildExtension.__name__
    return BuildExtension


def _extra(ext):
    if not isinstance(ext.extra_compile_args, dict):
        ext.extra_compile_args = {"cxx": list(ext.extra_compile_args or []),
                                  "mcc": list(ext.extra_compile_args or [])}
    ext.extra_compile_args.setdefault("cxx", [])
    ext.extra_compile_args.setdefault("mcc", [])
    return ext.extra_compile_args


def _add_define(ext, define):
    flag = "-D" + define
    for kind in ("cxx", "mcc"):
        if flag not in _extra(ext)[kind]:
            _extra(ext)[kind].append(flag)
