"""The rewrite engine: pure functions, text in, text plus a list of edits out.

One compiled regex per process does the whole pass: a trie of every whole-identifier key
(identifiers, prefixes, qualified literals, dispatch macros, no-op calls, arch guards) and
the #include directive, combined so that Python's ``re`` can skip with a first-character
set, and searched only over the lines that can hold a match (``hot.py``); the replacement
callback is a dict lookup. Nothing here touches the file system.
"""
import bisect
import re
from collections import namedtuple

from .hot import holds_anchor, hot_regions
from .rules import tables
from .rules.cuda_arch import musa_arch_for

Edit = namedtuple("Edit", "offset old new domain")
Finding = namedtuple("Finding", "offset kind message fix")
PortResult = namedtuple("PortResult", "text edits findings")

_W = "A-Za-z0-9_"
# Cheap pre-check: a file with none of these cannot match any rule.
_PRECHECK = re.compile(r"cu|CU|Cu|nv|NV|nccl|NCCL|TORCH_LIBRARY_IMPL|#\s*include")


def _trie_regex(words):
    """A regex alternation of ``words`` shaped as a trie (longest alternatives first)."""
    trie = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = True

    def emit(node):
        end = node.get("", False)
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return "(?:" + body + ")?" if end else body

    return emit(trie)


def _word_branches(words):
    """Top-level branches, one per first character, each starting with a literal so that
    ``re`` can use a first-character set; the left word boundary is asserted right after
    that first character (``(?<![A-Za-z0-9_].)``), the right one at the end."""
    by_first = {}
    for word in words:
        by_first.setdefault(word[0], []).append(word[1:])
    out = []
    for first, rests in sorted(by_first.items()):
        rest = _trie_regex([r for r in rests if r])
        if rest and "" in rests:
            rest = "(?:" + rest + ")?"
        out.append("%s(?<![%s].)%s(?![%s])" % (re.escape(first), _W, rest, _W))
    return out


class Porter:
    """Compiled rule set. ``Porter().port(text)`` -> PortResult."""

    def __init__(self, extra_identifiers=None):
        t = tables()
        self.ident = {k: v for k, v in t.identifiers.items()}
        self.ident.update(t.literals)
        for key, value in (extra_identifiers or {}).items():
            self.ident[key] = (value, "project")
        self.prefixes = dict(t.prefixes)
        self.includes = dict(t.includes)
        self.include_prefixes = sorted(t.include_prefixes.items(), key=lambda kv: -len(kv[0]))
        self.noop = dict(t.noop_calls)
        self.dispatch = dict(t.dispatch_macros)
        word_keys = [k for k in self.ident if re.match("[%s]" % _W, k)]
        punct = sorted((k for k in self.ident if k not in set(word_keys)), key=len, reverse=True)
        # Every top-level branch starts with a literal character and has no capturing
        # group in front of it, so ``re`` can skip ahead with a first-character set.
        lb = "(?<![%s].)" % _W
        branches = [r"#[ \t]*include[ \t]*(?:\"[^\"\n]*\"|<[^>\n]*>)",
                    r"_%s_CUDA_ARCH__[ \t]*(?:<=|>=|==|!=|<|>)[ \t]*\d+[uUlL]*(?![%s.])" % (lb, _W)]
        for name in sorted(self.dispatch, key=len, reverse=True):
            branches.append(r"%s%s%s\s*\(\s*[A-Za-z_]\w*\s*,\s*CUDA(?=\s*,)" % (
                re.escape(name[0]), lb, re.escape(name[1:])))
        for name in sorted(self.noop, key=len, reverse=True):
            branches.append(r"%s%s%s\s*\(\s*\)" % (re.escape(name[0]), lb, re.escape(name[1:])))
        branches += [re.escape(k) for k in punct]
        branches += _word_branches(word_keys)
        for p in sorted(self.prefixes, key=len, reverse=True):
            branches.append("%s%s%s[%s]*" % (re.escape(p[0]), lb, re.escape(p[1:]), _W))
        self.regex = re.compile("|".join(branches))
        # Line by line (hot.py) only when every key holds an anchor (a project's own
        # extra identifiers may not) and no multi-line rule's name is in the text.
        self._by_line = all(holds_anchor(k) for k in list(self.ident) + list(self.prefixes))
        self._multiline_names = tuple(self.dispatch) + tuple(self.noop)
        self._include = re.compile(r"#[ \t]*include[ \t]*(.)(.*)(.)$", re.S)
        self._arch = re.compile(r"__CUDA_ARCH__[ \t]*(<=|>=|==|!=|<|>)[ \t]*(\d+)")
        self._disp = re.compile(r"(\w+)(.*)CUDA$", re.S)
        self._reversed_arch = re.compile(
            r"(?<![%s.])(\d+)[uUlL]*[ \t]*(<=|>=|==|!=|<|>)[ \t]*__CUDA_ARCH__(?![%s])" % (_W, _W))
        self._symbolic_arch = re.compile(r"[ \t]*(?:<=|>=|==|!=|<|>)[ \t]*[A-Za-z_(]")
        # from the "#" (a literal re can skip to), its line start checked by the caller
        self._alias_define = re.compile(
            r"#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(*[ \t]*([A-Za-z_]\w*)[ \t]*\)*"
            r"[ \t]*(?://[^\n]*|/\*[^\n]*?\*/)?[ \t]*$", re.M)

    # -- name-level helpers (also used by torchada.naming) ------------------------------
    def map_name(self, name):
        """The MUSA name for one identifier, or None when no rule applies."""
        hit = self.ident.get(name)
        if hit is not None:
            return hit[0]
        for prefix, (value, _) in self.prefixes.items():
            if name.startswith(prefix):
                return value + name[len(prefix):]
        return None

    def map_include(self, path):
        hit = self.includes.get(path)
        if hit is not None:
            return hit
        for prefix, (value, domain) in self.include_prefixes:
            if path.startswith(prefix):
                return value + path[len(prefix):], domain
        return None

    # -- the pass ------------------------------------------------------------------------
    def port(self, text):
        return self.port_hot(text)[0]

    def port_hot(self, text, by_line=True):
        """(PortResult, hot regions searched): the regions (hot.hot_regions of ``text``)
        when the rule regex ran line by line, None when it ran over the whole text. The
        two ways give the same result (``by_line=False`` forces the second)."""
        # the pre-check holds only while every key holds an anchor (hot.py)
        if self._by_line and not _PRECHECK.search(text):
            return PortResult(text, [], []), ([] if by_line else None)
        edits = []
        findings = []
        if "__CUDA_ARCH__" in text:
            text = self._port_reversed_arch(text, edits)
        protected = self._protected_defines(text) if "define" in text else None
        ident, prefixes, noop = self.ident, self.prefixes, self.noop
        add = edits.append

        def repl(m):
            old = m.group(0)
            if protected and _inside(protected, m.start()):
                return old
            hit = ident.get(old)
            if hit is not None:
                new, domain = hit
                if old == "__CUDA_ARCH__" and self._symbolic_arch.match(text, m.end()):
                    findings.append(Finding(m.start(), "arch-guard-symbolic",
                                            "__CUDA_ARCH__ compared with a non-numeric value: "
                                            "the threshold cannot be translated",
                                            "compare with a number, or write a __MUSA_ARCH__ branch"))
            elif old[0] == "#":
                inc = self._include.match(old)
                hit = self.map_include(inc.group(2))
                if hit is None:
                    return old
                new = old[:inc.start(2)] + hit[0] + old[inc.end(2):]
                domain = hit[1]
            elif old.startswith("__CUDA_ARCH__"):
                a = self._arch.match(old)
                new, note = _translate_arch(a.group(1), int(a.group(2)))
                domain = "cuda_arch"
                if note:
                    findings.append(Finding(m.start(), "arch-guard-equality", note,
                                            "check the guarded code on each MUSA arch"))
            elif old.endswith(")"):
                name = old[:old.index("(")].rstrip()
                new, domain = noop[name]
            elif (old.endswith("CUDA") and (d := self._disp.match(old)) is not None
                  and d.group(1) in self.dispatch):
                new = d.group(1) + d.group(2) + "PrivateUse1"
                domain = self.dispatch[d.group(1)]
            else:  # prefix rule (which may also end in CUDA: nvjpegFooCUDA)
                for prefix, (value, domain) in prefixes.items():
                    if old.startswith(prefix):
                        new = value + old[len(prefix):]
                        break
            add(Edit(m.start(), old, new, domain))
            return new

        regions = None
        if by_line and self._by_line and not any(n in text for n in self._multiline_names):
            regions = hot_regions(text)
        parts = []
        last = 0
        finditer = self.regex.finditer
        for start, end in regions if regions is not None else ((0, len(text)),):
            for m in finditer(text, start, end):
                parts.append(text[last:m.start()])
                parts.append(repl(m))
                last = m.end()
        if not edits:  # unchanged (a match may map to itself: an unknown #include)
            return PortResult(text, edits, findings), regions
        parts.append(text[last:])
        return PortResult("".join(parts), edits, findings), regions

    def _port_reversed_arch(self, text, edits):
        """``800 <= __CUDA_ARCH__`` turned around, searched only on the lines naming
        __CUDA_ARCH__ (the pattern starts with digits, which are everywhere; it cannot
        span a line)."""
        parts, last, line_end = [], 0, -1
        find, rfind = text.find, text.rfind
        at = find("__CUDA_ARCH__")
        while at >= 0:
            if at > line_end:
                line_start = rfind("\n", 0, at) + 1
                line_end = find("\n", at)
                if line_end < 0:
                    line_end = len(text)
                for m in self._reversed_arch.finditer(text, line_start, line_end):
                    new, _ = _translate_arch(_FLIP[m.group(2)], int(m.group(1)))
                    edits.append(Edit(m.start(), m.group(0), new, "cuda_arch"))
                    parts += (text[last:m.start()], new)
                    last = m.end()
            at = find("__CUDA_ARCH__", at + 13)
        return "".join(parts) + text[last:] if parts else text

    def _protected_defines(self, text):
        """Spans of ``#define A B`` lines that already map a CUDA name onto its MUSA name:
        porting both sides would leave ``#define B B``, a self-reference that shadows the
        real definition. Such lines are kept verbatim."""
        spans = []
        for m in self._alias_define.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if text[line_start:m.start()].strip(" \t"):
                continue  # not the first thing on its line
            a, b = m.group(1), m.group(2)
            if a != b and (self.map_name(a) or a) == (self.map_name(b) or b):
                spans.append((line_start, m.end()))
        return spans


_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


def _translate_arch(op, cuda_value):
    """``__CUDA_ARCH__ op N`` -> (``__MUSA_ARCH__ op' M``, note or None)."""
    if op == ">=":
        return "__MUSA_ARCH__ >= %d" % musa_arch_for(cuda_value), None
    if op == "<":
        return "__MUSA_ARCH__ < %d" % musa_arch_for(cuda_value), None
    if op == ">":
        return "__MUSA_ARCH__ >= %d" % musa_arch_for(cuda_value + 1), None
    if op == "<=":
        return "__MUSA_ARCH__ < %d" % musa_arch_for(cuda_value + 1), None
    musa = musa_arch_for(cuda_value)
    return ("__MUSA_ARCH__ %s %d" % (op, musa),
            "__CUDA_ARCH__ %s %d names one NVIDIA arch; translated to the MUSA arch of the "
            "same feature tier (%d)" % (op, cuda_value, musa))


def _inside(spans, offset):
    i = bisect.bisect_right(spans, (offset, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= offset < spans[i][1]


def line_of(text, offset):
    """1-based line number of ``offset`` in ``text``."""
    return text.count("\n", 0, offset) + 1


def lines_of(text, offsets):
    """1-based line numbers of ``offsets`` (any order), each newline counted once: a file
    with thousands of findings would otherwise be counted from its start thousands of times."""
    out = [0] * len(offsets)
    line, pos = 1, 0
    for i in sorted(range(len(offsets)), key=offsets.__getitem__):
        offset = offsets[i]
        line += text.count("\n", pos, offset)
        pos = offset
        out[i] = line
    return out


def one_per_line(located):
    """(line, finding) pairs keeping the first finding of each kind on a line: a line that
    names ``wmma::`` three times is one thing to fix, reported once."""
    seen = set()
    out = []
    for line, finding in located:
        if (line, finding.kind) not in seen:
            seen.add((line, finding.kind))
            out.append((line, finding))
    return out


_DEFAULT = None


def default_porter():
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Porter()
    return _DEFAULT


def port_text(text, porter=None):
    """Port one source text. Returns PortResult(text, edits, findings)."""
    return (porter or default_porter()).port(text)
