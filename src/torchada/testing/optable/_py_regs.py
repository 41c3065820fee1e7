"""Kernels torch_musa registers from Python: ``torch.library.custom_op(...,
device_types="musa")``, ``torch.library.impl`` / ``register_kernel`` for musa, and
``Library(...).impl(name, fn, "PrivateUse1")``. Fake (Meta) registrations are not device
kernels and are left out."""
from __future__ import annotations

import ast

_DEVICE_WORDS = {"musa": "PrivateUse1", "privateuse1": "PrivateUse1", "PrivateUse1": "PrivateUse1"}


def _const(node):
    return node.value if isinstance(node, ast.Constant) else None


def _dotted(node) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _devices(node):
    value = _const(node)
    if isinstance(value, str):
        return [value]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_const(e) for e in node.elts]
    return [None]


def scan_file(path: str, text: str) -> list:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    rows = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = _dotted(node.func)
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        where = "%s:%d" % (path, node.lineno)
        if func.endswith("custom_op") and node.args:
            name = _const(node.args[0])
            devices = _devices(kw["device_types"]) if "device_types" in kw else []
        elif func.endswith(("library.impl", "register_kernel")) and len(node.args) >= 2:
            name, devices = _const(node.args[0]), _devices(node.args[1])
        elif func.endswith(".impl") and len(node.args) >= 3:
            name, devices = _const(node.args[0]), _devices(node.args[2])
        else:
            continue
        for device in devices:
            key = _DEVICE_WORDS.get(device) if isinstance(device, str) else None
            if isinstance(device, str) and key is None:
                continue  # another device's kernel
            if not isinstance(name, str) or key is None:
                rows.append({"op": "<%s>" % ast.unparse(node.args[0]) if node.args else "?",
                             "key": key or "unknown", "status": "unknown",
                             "reason": "operator name or device is not a literal", "source": where})
                continue
            rows.append({"op": name if "::" in name else "aten::" + name, "key": key,
                         "status": "registered", "how": "Python " + func.rsplit(".", 1)[-1],
                         "source": where})
    return rows
