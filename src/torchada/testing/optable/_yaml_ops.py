"""Rows from torch_musa's ``musa_functions.yaml``, decided as torch_musa's own codegen
decides them (``tools/codegen/gen_torch_musa.py`` at the same ref; line numbers below are
v2.7.1's).

An entry names a torch operator overload; whether, and for which dispatch keys, a kernel
is registered depends on the entry's ``dispatch`` and on the operator's row in torch's
``native_functions.yaml`` (structured or not), so both are read.
"""
from __future__ import annotations

import re

import yaml

YAML_PATH = "torch_musa/csrc/aten/ops/musa_functions.yaml"
NATIVE_PATCH = "torch_patches/aten_src_ATen_native_native_functions.yaml.patch"
# tools/codegen/model.py:18-26 (MUSA_DISPATCH_KEYS); PrivateUse1 is the structured key.
MUSA_KEYS = ("PrivateUse1", "QuantizedPrivateUse1", "SparsePrivateUse1",
             "SparseCsrPrivateUse1", "NestedTensorPrivateUse1", "AutogradPrivateUse1",
             "CompositeExplicitAutograd")

_NAME = re.compile(r"^((?:\w+::)?[\w.]+)")


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that keeps each mapping's first line (1-based) as ``__line__``."""

    def construct_mapping(self, node, deep=False):
        mapping = super().construct_mapping(node, deep=deep)
        mapping["__line__"] = node.start_mark.line + 1
        return mapping


def _load(text: str):
    return yaml.load(text, Loader=_LineLoader) or []


def _flatten(dispatch: dict | None) -> dict:
    """``{"CPU, CUDA": k}`` -> ``{"CPU": k, "CUDA": k}`` (torchgen's comma keys)."""
    out = {}
    for keys, kernel in (dispatch or {}).items():
        if keys == "__line__":
            continue
        for key in str(keys).split(","):
            out[key.strip()] = kernel
    return out


def op_name(func: str) -> str:
    """``add.Tensor(Tensor self, ...)`` or ``add.Tensor`` -> ``aten::add.Tensor``."""
    name = _NAME.match(func.strip()).group(1)
    return name if "::" in name else "aten::" + name


def patched_torch_entries(patch_text: str) -> list:
    """Operators torch_musa's patch appends to torch's native_functions.yaml (its added
    lines, as yaml): they exist only in the patched torch torch_musa is built with."""
    added = [line[1:] for line in patch_text.splitlines()
             if line.startswith("+") and not line.startswith("+++")]
    return _load("\n".join(added))


def torch_index(native_text: str, patch_entries: list) -> dict:
    """aten name -> (structured, structured_delegate, flattened dispatch, patched?, autogen
    parent or None). An ``autogen`` overload (torch generates its schema) is indexed too."""
    index = {}
    for entries, patched in ((_load(native_text), False), (patch_entries, True)):
        for entry in entries:
            name = op_name(entry["func"])
            index[name] = (bool(entry.get("structured", False)),
                           entry.get("structured_delegate"),
                           _flatten(entry.get("dispatch")), patched, None)
            for generated in filter(None, str(entry.get("autogen", "")).split(", ")):
                index.setdefault(op_name(generated), (False, None, {}, patched, name))
    return index


def rows(musa_text: str, index: dict) -> list:
    """One row per (operator overload, dispatch key) the yaml leads to."""
    out = []
    for entry in _load(musa_text):
        name = op_name(entry["func"])
        where = "%s:%d" % (YAML_PATH, entry["__line__"])
        base = {"op": name, "source": where}
        if name not in index:
            # gen_torch_musa.py:483-488: an entry torch does not define (and that is no
            # autogen of one) stops the codegen, so a built release has none.
            out.append(dict(base, key="PrivateUse1", status="unknown",
                            reason="not in torch's native_functions.yaml; torch_musa's codegen "
                                   "refuses such entries (gen_torch_musa.py:483-488)"))
            continue
        structured, delegate, torch_dispatch, patched, parent = index[name]
        if patched:
            base["patched_torch"] = True
        musa = _flatten(entry.get("dispatch"))
        if parent is not None:
            # gen_torch_musa.py:468-480 and 338-386: an overload torch autogenerates from
            # `parent`; torch_musa registers exactly the keys its dispatch names.
            for key, kernel in sorted(musa.items()):
                out.append(dict(base, key=key, status="registered", kernel=kernel,
                                how="yaml dispatch (torch autogen of %s)" % parent))
            if not musa:
                out.append(dict(base, key="PrivateUse1", status="unknown",
                                reason="autogen overload without dispatch: torch_musa's codegen "
                                       "asserts one (gen_torch_musa.py:366-367)"))
            continue
        for key in musa:
            if key not in MUSA_KEYS:
                out.append(dict(base, key=key, status="unknown",
                                reason="dispatch key %s is not one of torch_musa's codegen keys" % key))
        # gen_torch_musa.py:195-216: keys other than PrivateUse1 are registered as written.
        for key, kernel in sorted(musa.items()):
            if key in MUSA_KEYS and key != "PrivateUse1":
                out.append(dict(base, key=key, status="registered", kernel=kernel,
                                how="yaml dispatch"))
        if "PrivateUse1" in musa:
            # gen_torch_musa.py:253-278: an explicit PrivateUse1 kernel.
            out.append(dict(base, key="PrivateUse1", status="registered",
                            kernel=musa["PrivateUse1"], how="yaml dispatch"))
        elif structured:
            # gen_torch_musa.py:225-239: a structured out= overload without a PrivateUse1
            # dispatch registers torch's CUDA kernel (the ported CUDA stub).
            out.append(dict(base, key="PrivateUse1", status="registered",
                            kernel=torch_dispatch.get("CUDA", "unknown"),
                            how="yaml structured (CUDA kernel)"))
        elif delegate is not None:
            # gen_torch_musa.py:240-243: functional / in-place variant of a structured group,
            # registered through its out= overload's kernel.
            out.append(dict(base, key="PrivateUse1", status="registered",
                            kernel="structured delegate " + str(delegate),
                            how="yaml structured delegate"))
        elif not musa:
            # gen_torch_musa.py:244-251: neither dispatch nor structured: the codegen drops
            # every key, so nothing is registered for this entry.
            out.append(dict(base, key="PrivateUse1", status="not-registered",
                            reason="entry without dispatch for an unstructured torch operator: "
                                   "the codegen registers nothing (gen_torch_musa.py:244-251)"))
    return out


def universe(index: dict) -> list:
    """Every aten overload of the torch (and patch) the release is built against."""
    return sorted(index)
