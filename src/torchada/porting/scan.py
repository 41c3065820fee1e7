"""Scans that report, never rewrite: constructs with no MUSA equivalent, and CUDA
identifiers left unmapped after porting.

Both ignore comments and string literals. Speed (issue 14): every pattern starts with a
literal so ``re`` can skip ahead on its first-character set (no leading ``\\w*``); masking
writes each comment or string as spaces of the same length (newlines kept, so offsets and
line numbers stay those of the original); a report runs only on files holding one of its
gate words (``rules.unsupported.GATES``), and a file with none is never masked. A finding's offset may sit a few characters right of
where an older, slower pattern put it (``warpSize`` found at ``w``, not at the start of
``kWarpSize``): findings are reported by line, which is the same.
"""
import bisect
import re
from collections import namedtuple

from .engine import Finding, lines_of, one_per_line
from .rules.unsupported import GATES, REPORTS

Unmapped = namedtuple("Unmapped", "name count first_offset")

_W = "A-Za-z0-9_"
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


# Each report on its own, each of its alternatives on its own: an alternation defeats re's
# literal-prefix search.
_REPORTS = [(GATES[kind], tuple(re.compile(a) for a in alts), kind, why, fix)
            for kind, alts, why, fix in REPORTS]
# One capturing group: ``split`` returns code and comments/strings alternately in one call,
# cheaper than a Python callback per match from ``sub``.
# The string branch unrolled ("[^"\\\n]*(?:\\.[^"\\\n]*)*", the same language as
# "(?:\\.|[^"\\\n])*"): one loop per run of plain characters, not one per character.
_COMMENT_OR_STRING = re.compile(r'(//[^\n]*|/\*.*?\*/|"[^"\\\n]*(?:\\.[^"\\\n]*)*")', re.S)

# An identifier that still looks like CUDA API after porting. Each branch is its first
# character, the left word boundary, then the rest; ``\w*CUDA\w*`` (CUDA inside a name) is
# found from its "CUDA" and widened left.
_IDENT_BRANCHES = (
    r"cuda[A-Z_]\w*", r"cu[A-Z][A-Za-z0-9]\w*", r"CU[A-Z][A-Za-z]*_\w*",
    r"CU(?:result|device|context|stream|event|function|module|deviceptr)(?![%s])" % _W,
    r"c(?:ublas|ublasLt|udnn|ufft|urand|usolver|usparse|upti)\w*",
    r"n(?:ccl|vjpeg|vtx)\w*",
    r"C(?:UBLAS|UDNN|UFFT|URAND|USOLVER|USPARSE)_\w*", r"N(?:CCL|VJPEG|VTX)_\w*",
    r"__nv_\w+", r"__CUDA\w*", r"CUDA_\w+")
_CUDA_IDENT = re.compile("(?:%s)(?![%s])" % (
    "|".join("%s(?<![%s].)%s" % (b[0], _W, b[1:]) for b in _IDENT_BRANCHES), _W))
_CUDA_INSIDE = re.compile(r"CUDA\w*")


def _mask_comments(text):
    """Text with comments and string literals blanked (same length, newlines kept)."""
    parts = _COMMENT_OR_STRING.split(text)
    if len(parts) == 1:
        return text
    # strings and // comments hold no newline; only block comments need theirs kept
    parts[1::2] = [" " * len(s) if "\n" not in s else "\n".join([" " * len(line) for line in s.split("\n")])
                   for s in parts[1::2]]
    return "".join(parts)


def _due_reports(text):
    """The reports whose gate words ``text`` holds (only those can match)."""
    return [r for r in _REPORTS if any(word in text for word in r[0])]


def _report_findings(due, code):
    found = []
    for _, alts, kind, why, fix in due:
        if len(alts) == 1:
            found += [Finding(m.start(), kind, why, fix) for m in alts[0].finditer(code)]
            continue
        # what one alternation would find: leftmost first, the earlier alternative at a
        # tie, no overlap
        spans = sorted((m.start(), i, m.end()) for i, rx in enumerate(alts)
                       for m in rx.finditer(code))
        last_end = -1
        for start, _, end in spans:
            if start >= last_end:
                found.append(Finding(start, kind, why, fix))
                last_end = max(end, start + 1)
    return sorted(found)


def _has_identifiers(text, regions=None):
    """Whether ``text`` may hold a CUDA-looking identifier (masking can only remove them);
    searched only inside ``regions`` when given (see ``_identifiers``)."""
    if "CUDA" in text:
        return True
    if regions is None:
        return _CUDA_IDENT.search(text) is not None
    return any(_CUDA_IDENT.search(text, start, end) for start, end in regions)


def scan_unsupported(text):
    """Findings for constructs that have no MUSA equivalent (comments and strings ignored)."""
    due = _due_reports(text)
    return _report_findings(due, _mask_comments(text)) if due else []


def _identifiers(code, regions=None):
    """(start, name) of CUDA-looking identifiers in masked code, in order, each once;
    only inside ``regions`` (hot.hot_regions of the unmasked text) when given: every
    such identifier holds an anchor and sits on one line."""
    spans = {}
    for start, end in regions if regions is not None else ((0, len(code)),):
        for m in _CUDA_IDENT.finditer(code, start, end):
            spans[m.start()] = m.end()
        for m in _CUDA_INSIDE.finditer(code, start, end):
            left = m.start()
            while left and code[left - 1] in _WORD:
                left -= 1
            spans.setdefault(left, m.end())
    last_end = -1
    for start in sorted(spans):
        if start >= last_end:  # a second "CUDA" inside a name already taken
            last_end = spans[start]
            yield start, code[start:last_end]


def scan_unmapped(text):
    """CUDA-looking identifiers left in ``text`` (comments and strings ignored):
    {name: Unmapped(name, count, first_offset)}."""
    if "cu" not in text and "CU" not in text and "nv" not in text and "nccl" not in text \
            and "NV" not in text and "NCCL" not in text:
        return {}
    if not _has_identifiers(text):
        return {}
    found = {}
    for start, name in _identifiers(_mask_comments(text)):
        hit = found.get(name)
        found[name] = Unmapped(name, 1, start) if hit is None else hit._replace(count=hit.count + 1)
    return found


def diagnose(text, result, regions=None):
    """Both scans for one file and its PortResult, masking the original at most once (not
    at all when no report is due and every CUDA-looking identifier was rewritten):
    (findings, {name: (count, first line)}), the same answers as ``scan_unsupported(text)``
    and ``scan_unmapped(result.text)``. ``regions``: the hot regions of ``text`` when the
    port searched them (``Porter.port_hot``); identifiers are then looked for only there.

    An identifier left unmapped is one the port did not rewrite, found in the original
    outside every edit's span and not blanked by the mask, or one a rule wrote (``CUTLASS_CUDA_X`` ->
    ``MUTLASS_CUDA_X``), found in the edit's new text unless the edit sits in a comment or
    string; lines are the same in both texts (no rule writes a newline). A file whose
    ``__CUDA_ARCH__`` comparisons were turned around first has edits against another text:
    it is scanned the two-mask way."""
    due = _due_reports(text)
    idents = _has_identifiers(text, regions)
    if not due and not idents:
        return [], {}
    if idents and result.text != text and "__CUDA_ARCH__" in text:
        hits = list(scan_unmapped(result.text).values())
        lines = lines_of(result.text, [h.first_offset for h in hits])
        code = _mask_comments(text) if due else None
        return _report_findings(due, code) if due else [], \
            {h.name: (h.count, line) for h, line in zip(hits, lines)}
    candidates, writers = [], []
    if idents:
        # found in the original: a token lies wholly in code or wholly in a comment or
        # string, so the mask (made only if needed) decides afterwards
        starts = [e.offset for e in result.edits]
        ends = [e.offset + len(e.old) for e in result.edits]
        for start, name in _identifiers(text, regions):
            i = bisect.bisect_right(starts, start) - 1
            if i < 0 or start >= ends[i]:  # not rewritten by a rule
                candidates.append((start, name))
        writers = [e for e in result.edits
                   if "CU" in e.new or "cu" in e.new or "nv" in e.new or "NV" in e.new
                   or "nccl" in e.new]
    if not (due or candidates or writers):
        return [], {}
    code = _mask_comments(text)
    findings = _report_findings(due, code) if due else []
    found = {}

    def add(name, offset):
        hit = found.get(name)
        found[name] = [1, offset] if hit is None else [hit[0] + 1, min(hit[1], offset)]

    for start, name in candidates:
        if code[start] == text[start]:  # not blanked: code, not a comment or string
            add(name, start)
    for edit in writers:
        if not (code[edit.offset] == " " and text[edit.offset] != " "):
            for _, name in _identifiers(_mask_comments(edit.new)):
                add(name, edit.offset)
    lines = lines_of(text, [first for _, first in found.values()])
    return findings, {n: (c, line) for (n, (c, _)), line in zip(found.items(), lines)}


def located(text, findings):
    """(line, finding) pairs."""
    return one_per_line(zip(lines_of(text, [f.offset for f in findings]), findings))
