"""Registrations written by hand in torch_musa's C++ sources: ``TORCH_LIBRARY_IMPL``
blocks and their ``m.impl(...)`` calls, including those a macro wraps (the macro's
``#define`` is read, and each use of it with a literal operator name is expanded).

Only PrivateUse1-family keys are kept (the device's kernels); autocast wrappers and
registrations for other backends are not kernels of the device. A name the source does
not spell as a literal (built by the preprocessor) is recorded as unknown.
"""
from __future__ import annotations

import re

EXTENSIONS = (".cpp", ".cc", ".cu", ".mu", ".h", ".hpp", ".cuh", ".muh")
KERNEL_KEYS = ("PrivateUse1", "QuantizedPrivateUse1", "SparsePrivateUse1",
               "SparseCsrPrivateUse1", "NestedTensorPrivateUse1", "AutogradPrivateUse1")

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"", re.S)
_BLOCK = re.compile(r"TORCH_LIBRARY_IMPL\s*\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", re.M)
_LITERAL = re.compile(r'^\s*(?:TORCH_SELECTIVE_NAME\s*\(\s*)?"([^"]+)"\s*\)?\s*$')


def strip_comments(text: str) -> str:
    """Comments blanked (newlines kept, so line numbers hold); string literals kept."""
    def blank(m):
        s = m.group(0)
        return s if s.startswith('"') else re.sub(r"[^\n]", " ", s)
    return _COMMENT.sub(blank, text)


def _closing(text: str, start: int, open_ch: str, close_ch: str) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_ch:
            depth += 1
        elif text[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _args(text: str) -> list:
    """Top-level comma-separated arguments of a call's argument text."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _impls(body: str):
    """(first argument text, offset in body) of each ``<lib>.impl(`` call."""
    for m in re.finditer(r"\b\w+\s*\.\s*impl\s*\(", body):
        open_at = m.end() - 1
        args = _args(body[open_at + 1:_closing(body, open_at, "(", ")")])
        yield (args[0] if args else ""), m.start()


def _fallbacks(body: str):
    for m in re.finditer(r"\b\w+\s*\.\s*fallback\s*\(", body):
        yield m.start()


def scan_file(path: str, text: str):
    """Rows and fallback records for one file, plus macro templates it defines."""
    code = strip_comments(text)
    rows, fallbacks, macros = [], [], {}
    defined = []
    for d in _DEFINE.finditer(code):
        defined.append((d.start(), d.end()))
        params = [p.strip() for p in d.group(2).split(",")]
        body = d.group(3).replace("\\\n", "\n")
        block = _BLOCK.search(body)
        if block:
            macros[d.group(1)] = (params, body, "%s:%d" % (path, _line(code, d.start())))
    for block in _BLOCK.finditer(code):
        if any(a <= block.start() < b for a, b in defined):
            continue  # a macro's template: expanded at its uses
        ns, key, _ = block.groups()
        open_at = block.end() - 1
        body = code[open_at:_closing(code, open_at, "{", "}")]
        if key not in KERNEL_KEYS:
            continue
        if ns == "_":
            fallbacks.extend({"key": key, "source": "%s:%d" % (path, _line(code, open_at + pos))}
                             for pos in _fallbacks(body))
            continue
        for first, pos in _impls(body):
            rows.append(_row(ns, key, first, "%s:%d" % (path, _line(code, open_at + pos))))
    return rows, fallbacks, macros


def _row(ns: str, key: str, first: str, where: str) -> dict:
    lit = _LITERAL.match(first)
    if lit is None:
        return {"op": "%s::<%s>" % (ns, first), "key": key, "status": "unknown",
                "reason": "operator name %r is not a literal in the source" % first,
                "source": where}
    name = lit.group(1)
    name = name if "::" in name else "%s::%s" % (ns, name)
    return {"op": name, "key": key, "status": "registered", "how": "C++ m.impl",
            "source": where}


def expand_macro_uses(path: str, text: str, macros: dict):
    """Rows for each use of a registering macro in one file."""
    code = strip_comments(text)
    rows = []
    for name, (params, body, defined_at) in macros.items():
        for use in re.finditer(r"(?<![\w#])%s\s*\(" % re.escape(name), code):
            line_start = code.rfind("\n", 0, use.start()) + 1
            if re.match(r"\s*#\s*define", code[line_start:use.start()]):
                continue
            open_at = use.end() - 1
            args = _args(code[open_at + 1:_closing(code, open_at, "(", ")")])
            subst = dict(zip(params, args))
            where = "%s:%d" % (path, _line(code, use.start()))
            block = _BLOCK.search(body)
            ns, key = (subst.get(g, g) for g in block.groups()[:2])
            if key not in KERNEL_KEYS:
                continue
            inner = body[block.end() - 1:]
            for first, _ in _impls(inner):
                first = subst.get(first.strip(), first)
                row = _row(ns, key, first, where)
                row["how"] = "C++ macro %s (%s)" % (name, defined_at)
                rows.append(row)
    return rows
