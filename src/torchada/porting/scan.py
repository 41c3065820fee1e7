"""Scans that report, never rewrite: constructs with no MUSA equivalent, and CUDA
identifiers left unmapped after porting."""
import re
from collections import namedtuple

from .engine import Finding, line_of
from .rules.unsupported import REPORTS

Unmapped = namedtuple("Unmapped", "name count first_offset")

_REPORT_RES = [(kind, re.compile(rx), why, fix) for kind, rx, why, fix in REPORTS]
_REPORT_PRECHECK = re.compile(
    r"asm|_sync|[Ww]arp|WARP|activemask|cooperative|grid_group|this_grid|cluster|wmma|"
    r"CUtensorMap|cuTensorMap|cp\.async")
_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)

# An identifier that still looks like CUDA API after porting.
_CUDA_IDENT = re.compile(
    r"(?<![A-Za-z0-9_])(?:"
    r"cuda[A-Z_]\w*|cu[A-Z][A-Za-z0-9]\w*|CU[A-Z][A-Za-z]*_\w*|CU(?:result|device|context|stream|event|function|module|deviceptr)\b|"
    r"(?:cublas|cublasLt|cudnn|cufft|curand|cusolver|cusparse|nccl|nvjpeg|nvtx|cupti)\w*|"
    r"(?:CUBLAS|CUDNN|CUFFT|CURAND|CUSOLVER|CUSPARSE|NCCL|NVJPEG|NVTX)_\w*|"
    r"__nv_\w+|__CUDA\w*|CUDA_\w+|\w*CUDA\w*"
    r")(?![A-Za-z0-9_])")


def _mask_comments(text):
    """Text with comments and string literals blanked (same length, newlines kept)."""
    return _COMMENT_OR_STRING.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def scan_unsupported(text):
    """Findings for constructs that have no MUSA equivalent (comments and strings ignored)."""
    if not _REPORT_PRECHECK.search(text):
        return []
    code = _mask_comments(text)
    out = []
    for kind, rx, why, fix in _REPORT_RES:
        for m in rx.finditer(code):
            out.append(Finding(m.start(), kind, why, fix))
    out.sort()
    return out


def scan_unmapped(text):
    """CUDA-looking identifiers left in ``text`` (comments and strings ignored):
    {name: Unmapped(name, count, first_offset)}."""
    if "cu" not in text and "CU" not in text and "nv" not in text and "nccl" not in text \
            and "NV" not in text and "NCCL" not in text:
        return {}
    code = _mask_comments(text)
    found = {}
    for m in _CUDA_IDENT.finditer(code):
        name = m.group(0)
        hit = found.get(name)
        if hit is None:
            found[name] = Unmapped(name, 1, m.start())
        else:
            found[name] = hit._replace(count=hit.count + 1)
    return found


def located(text, findings):
    """(line, finding) pairs."""
    return [(line_of(text, f.offset), f) for f in findings]
