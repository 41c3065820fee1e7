"""torchada.utils.cpp_extension: stable-ABI compatibility headers for MUSA builds.

``stable_compat_include_dir()`` / ``stable_compat_box_header()`` return paths of headers
shipped (read-only) with torchada. For torch < 2.11 on MUSA, whose torch::stable::Tensor
lacks the mutable_data_ptr / const_data_ptr accessors newer stable-ABI kernels call, the
build step (``stable_overlay_dirs()``, called lazily by BuildExtension) writes a patched
copy of torch's header into torchada's cache and puts that directory first on the include
path. Installed headers are never modified, and importing this module writes nothing.
"""
import hashlib
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_INCLUDE = os.path.join(_HERE, "stable_compat", "include")
_ANCHOR = "  int64_t numel() const {"
_CANDIDATES = ("torch/csrc/stable/tensor_struct.h", "torch/csrc/stable/tensor.h")
_ACCESSORS = {
    "mutable_data_ptr": (
        "  // torchada: accessor backported from newer torch::stable::Tensor\n"
        "  void* mutable_data_ptr() const { return data_ptr(); }\n"
        "  template <typename T>\n"
        "  T* mutable_data_ptr() const { return reinterpret_cast<T*>(data_ptr()); }\n"),
    "const_data_ptr": (
        "  // torchada: accessor backported from newer torch::stable::Tensor\n"
        "  const void* const_data_ptr() const { return data_ptr(); }\n"
        "  template <typename T>\n"
        "  const T* const_data_ptr() const { return reinterpret_cast<const T*>(data_ptr()); }\n"),
}


def stable_compat_include_dir():
    """Directory holding torchada's stable-ABI compatibility headers (add it with -I)."""
    return _INCLUDE


def stable_compat_box_header():
    """Path of torchada_stable_box.h, meant for ``-include`` on stable-ABI sources."""
    return os.path.join(_INCLUDE, "torchada_stable_box.h")


def backport_needed(torch_version=None):
    """True when torch::stable accessors must be backported (torch < 2.11)."""
    from packaging.version import Version

    if torch_version is None:
        import torch

        torch_version = torch.__version__
    try:
        return Version(str(torch_version).split("+")[0]) < Version("2.11")
    except Exception:
        return False


def patch_stable_header(text):
    """``text`` with the missing accessors inserted before ``numel()``; unchanged when
    nothing is missing or the anchor is absent (idempotent)."""
    if _ANCHOR not in text:
        return text
    block = "".join(code for name, code in _ACCESSORS.items() if name not in text)
    if not block:
        return text
    return text.replace(_ANCHOR, block + _ANCHOR, 1)


def stable_overlay_dirs(torch_include=None, torch_version=None, cache=None):
    """Include directories to put first for a MUSA build (possibly empty).

    Reads torch's stable Tensor header; when accessors are missing, writes the patched
    copy to ``<cache>/stable-compat/<hash>/`` (private, atomic) and returns that directory
    plus torchada's compat include dir. Never writes anywhere else."""
    if not backport_needed(torch_version):
        return []
    if torch_include is None:
        import torch

        torch_include = os.path.join(os.path.dirname(torch.__file__), "include")
    for rel in _CANDIDATES:
        src = os.path.join(torch_include, rel)
        if not os.path.isfile(src):
            continue
        with open(src, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
        patched = patch_stable_header(text)
        if patched == text:
            return [_INCLUDE]
        from torchada._core.native_cache import trusted_dir

        digest = hashlib.sha256(patched.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        root = trusted_dir("stable-compat", digest, root=cache)
        dst = os.path.join(root, rel)
        if not os.path.isfile(dst):
            from torchada._core.files import write_atomic

            trusted_dir("stable-compat", digest, *os.path.dirname(rel).split("/"), root=cache)
            write_atomic(dst, patched.encode("utf-8", "surrogateescape"), mode=0o600, sync=False)
        return [root, _INCLUDE]
    return [_INCLUDE]
