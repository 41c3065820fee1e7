"""Property tests: idempotence, no change without CUDA content, no self-references."""
import re

from hypothesis import given, settings, strategies as st

from torchada.porting import port_text
from torchada.porting.rules import tables

_T = tables()
KEYS = sorted(set(_T.identifiers) | set(_T.literals))
VALUES = sorted({v for v, _ in _T.identifiers.values()})
NOISE = st.sampled_from([" ", "\n", "(", ")", ";", "::", ".", "->", "_", "x", "my", "0", "1",
                         "#define ", "#if ", "#include <", "#include \"", ">", "\"", "//",
                         "/*", "*/", " < ", " >= ", "800", "CUDA", "cuda", ",", "\\\n"])
TOKEN = st.one_of(st.sampled_from(KEYS), st.sampled_from(VALUES), NOISE,
                  st.sampled_from(["__CUDA_ARCH__", "STABLE_TORCH_LIBRARY_IMPL(ns, CUDA, m)",
                                   "cudaGridDependencySynchronize()", "nvjpegFoo", "NVJPEG_BAR",
                                   "cuda.h", "cuda/std/limits", "torch/cuda.h"]))
SOURCE = st.lists(TOKEN, max_size=60).map("".join)
PLAIN = st.text(alphabet=st.characters(blacklist_characters="cCnN#"), max_size=400)


@settings(max_examples=400, deadline=None)
@given(SOURCE)
def test_porting_twice_equals_porting_once(text):
    once = port_text(text).text
    assert port_text(once).text == once


@settings(max_examples=300, deadline=None)
@given(PLAIN)
def test_text_without_cuda_content_is_unchanged(text):
    result = port_text(text)
    assert result.text == text and result.edits == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(KEYS), min_size=1, max_size=3))
def test_defines_never_become_self_references(names):
    for a in names:
        for b in names:
            src = "#define %s %s\n" % (a, b)
            out = port_text(src).text
            m = re.match(r"#define (\S+) (\S+)\n", out)
            assert not (m and m.group(1) == m.group(2) and a != b), (src, out)


@settings(max_examples=200, deadline=None)
@given(SOURCE)
def test_edits_describe_the_change(text):
    result = port_text(text)
    assert (result.text == text) == (not result.edits)


@settings(max_examples=400, deadline=None)
@given(SOURCE)
def test_line_by_line_pass_equals_the_whole_text_pass(text):
    """The rule regex run only over hot lines (hot.py) gives what it gives over the whole
    text, and the unmapped-identifier scan limited to those lines agrees too (issue 14)."""
    from torchada.porting.engine import default_porter
    from torchada.porting.scan import diagnose

    porter = default_porter()
    whole, none = porter.port_hot(text, by_line=False)
    by_line, regions = porter.port_hot(text)
    assert none is None
    assert by_line == whole
    assert diagnose(text, by_line, regions) == diagnose(text, whole)


@settings(max_examples=200, deadline=None)
@given(SOURCE)
def test_lines_of_counts_as_line_of(text):
    from torchada.porting.engine import line_of, lines_of

    offsets = list(range(0, len(text) + 1, 3))[::-1]
    assert lines_of(text, offsets) == [line_of(text, o) for o in offsets]


@settings(max_examples=400, deadline=None)
@given(SOURCE)
def test_diagnose_answers_as_the_two_separate_scans(text):
    """diagnose (identifiers found in the original, one mask made only when needed) ==
    scan_unsupported(original) and scan_unmapped(ported), each masking its own text."""
    from torchada.porting import scan_unmapped, scan_unsupported
    from torchada.porting.engine import default_porter, line_of
    from torchada.porting.scan import diagnose

    result, regions = default_porter().port_hot(text)
    findings, unmapped = diagnose(text, result, regions)
    assert [(f.offset, f.kind) for f in findings] == [(f.offset, f.kind) for f in scan_unsupported(text)]
    assert unmapped == {n: (h.count, line_of(result.text, h.first_offset))
                        for n, h in scan_unmapped(result.text).items()}
