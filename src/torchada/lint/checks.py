"""Finding the rules' patterns in one module's syntax tree."""
import ast
import re
from collections import namedtuple

# negated: the finding is a "not CUDA" test (!=, not in, not ...startswith): its fix is negated too
Finding = namedtuple("Finding", "path line col code source negated", defaults=(False,))

_IGNORE = re.compile(r"#\s*torchada:\s*ignore(?:\[([A-Z0-9, ]+)\])?")
_CUDA_LIBRARY_PATH = re.compile(r"[/\\][^\s'\"]*lib(cudart|cublas|cublasLt|cudnn|nccl|nvrtc|cufft|"
                                r"curand|cusparse|cusolver|cuda)\b[^\s'\"]*\.(so|dll)")


def _const_str(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _is_cuda_literal(node):
    value = _const_str(node)
    return value is not None and (value == "cuda" or value.startswith("cuda:"))


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _cuda_in_container(node):
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and any(
        _is_cuda_literal(e) for e in node.elts)


def _is_get_backend(node):
    """dist.get_backend(...): torchada's answer compares equal to "nccl" on MUSA."""
    return isinstance(node, ast.Call) and (_dotted(node.func) or "").endswith("get_backend")


def _is_str_call(node):
    if isinstance(node, ast.JoinedStr):
        return True
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("str", "repr", "format"))


class _Visitor(ast.NodeVisitor):
    def __init__(self):
        self.hits = []                # (node, code, negated)
        self._if_stack = []
        self._negated = set()         # ids of calls under a ``not``

    def _hit(self, node, code, negated=False):
        self.hits.append((node, code, negated))

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            self._negated.add(id(node.operand))
        self.generic_visit(node)

    def visit_Call(self, node):
        # str(d).startswith("cuda") / d.type.startswith(("cuda", ...)): the same tests as
        # "cuda" in str(d) (TA005) and d.type == "cuda" (TA001), spelled as a prefix test.
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "startswith" and node.args \
                and (_is_cuda_literal(node.args[0]) or _const_str(node.args[0]) == "cuda:"
                     or _cuda_in_container(node.args[0])):
            negated = id(node) in self._negated
            if _is_str_call(func.value):
                self._hit(node, "TA005", negated)
            elif isinstance(func.value, ast.Attribute) and func.value.attr == "type":
                self._hit(node, "TA001", negated)
        self.generic_visit(node)

    def visit_Compare(self, node):
        sides = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, sides, sides[1:]):
            self._compare(node, op, left, right)
        self.generic_visit(node)

    def _compare(self, node, op, left, right):
        negated = isinstance(op, (ast.NotEq, ast.IsNot, ast.NotIn))
        if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
            for a, b in ((left, right), (right, left)):
                if isinstance(a, ast.Attribute) and a.attr == "type" and _is_cuda_literal(b):
                    return self._hit(node, "TA001", negated)
                if _const_str(b) == "nccl" and not _is_get_backend(a):
                    return self._hit(node, "TA002")
        if isinstance(op, (ast.In, ast.NotIn)):
            if isinstance(left, ast.Attribute) and left.attr == "type" and _cuda_in_container(right):
                return self._hit(node, "TA001", negated)
            if _const_str(left) == "nccl" or (isinstance(right, (ast.Tuple, ast.List, ast.Set))
                                                and any(_const_str(e) == "nccl" for e in right.elts)):
                return self._hit(node, "TA002")
            if _const_str(left) in ("cuda", "cuda:") and _is_str_call(right):
                return self._hit(node, "TA005", negated)

    def visit_Attribute(self, node):
        if _dotted(node) == "torch.version.cuda":
            self._hit(node, "TA004")
        self.generic_visit(node)

    def _chooses_device(self, *branches):
        return any(_is_cuda_literal(n) for b in branches for n in ast.walk(b))

    def visit_IfExp(self, node):
        if self._calls_cuda_available(node.test) and self._chooses_device(node.body, node.orelse):
            self._hit(node, "TA003")
        self.generic_visit(node)

    def visit_If(self, node):
        if self._calls_cuda_available(node.test) and self._chooses_device(
                *node.body, *node.orelse):
            self._hit(node, "TA003")
        self.generic_visit(node)

    @staticmethod
    def _calls_cuda_available(test):
        return any(isinstance(n, ast.Call) and _dotted(n.func) in (
            "torch.cuda.is_available", "cuda.is_available") for n in ast.walk(test))

    def visit_Constant(self, node):
        if isinstance(node.value, str) and _CUDA_LIBRARY_PATH.search(node.value):
            self._hit(node, "TA006")


# Every rule's pattern contains one of these: a source without them is not parsed at all.
_NEEDLES = ("cuda", "nccl", "libcu", "nvrtc")


def check_source(source, path="<string>"):
    """The findings in one module's source (a SyntaxError propagates to the caller)."""
    if not any(needle in source for needle in _NEEDLES):
        return []
    tree = ast.parse(source, filename=path)
    visitor = _Visitor()
    visitor.visit(tree)
    lines = source.splitlines()
    findings, seen = [], set()
    for node, code, negated in visitor.hits:
        line = getattr(node, "lineno", 1)
        if (line, code) in seen:
            continue
        seen.add((line, code))
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        ignored = _IGNORE.search(text)
        if ignored and (ignored.group(1) is None
                        or code in [c.strip() for c in ignored.group(1).split(",")]):
            continue
        findings.append(Finding(path, line, getattr(node, "col_offset", 0) + 1, code, text.strip(),
                                negated))
    return sorted(findings, key=lambda f: (f.line, f.col, f.code))
