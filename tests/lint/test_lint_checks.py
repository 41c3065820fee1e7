"""The lint rules on small sources: each pattern found, its look-alikes not."""
import textwrap

import pytest

from torchada.lint import RULES, check_source


def codes(source):
    return [(f.line, f.code) for f in check_source(textwrap.dedent(source))]


@pytest.mark.parametrize("source, expected", [
    ('if x.device.type == "cuda": pass', [(1, "TA001")]),
    ('if "cuda" != t.device.type: pass', [(1, "TA001")]),
    ('ok = dev.type in ("cuda", "xpu")', [(1, "TA001")]),
    ('ok = dev.type not in ["cuda"]', [(1, "TA001")]),
    ('ok = dev.type == "cuda:0"', [(1, "TA001")]),
    ('ok = dev.type == "cpu"', []),
    ('ok = dev.kind == "cuda"', []),
    ('ok = dev.type in ("cpu", "mps")', []),
    ('ok = backend == "nccl"', [(1, "TA002")]),
    ('ok = pg.name() in ("nccl", "gloo")', [(1, "TA002")]),
    ('ok = dist.get_backend() == "nccl"', []),      # torchada makes this one work
    ('ok = dist.get_backend(group) != "nccl"', []),
    ('d = "cuda" if torch.cuda.is_available() else "cpu"', [(1, "TA003")]),
    ('''
     if torch.cuda.is_available():
         device = torch.device("cuda:0")
     ''', [(2, "TA003")]),
    ('use_amp = torch.cuda.is_available() and args.amp', []),   # no device chosen
    ('v = torch.version.cuda', [(1, "TA004")]),
    ('if torch.version.cuda is None: pass', [(1, "TA004")]),
    ('v = torch.version.musa', []),
    ('on_gpu = "cuda" in str(t.device)', [(1, "TA005")]),
    ('on_gpu = "cuda:" in f"{t.device}"', [(1, "TA005")]),
    ('on_gpu = "cuda" in names', []),
    ('on_gpu = str(t.device).startswith("cuda")', [(1, "TA005")]),
    ('on_gpu = f"{t.device}".startswith(("cuda:", "xpu"))', [(1, "TA005")]),
    ('on_gpu = t.device.type.startswith("cuda")', [(1, "TA001")]),
    ('on_gpu = name.startswith("cuda")', []),
    ('on_gpu = str(t.device).startswith("cpu")', []),
    ('lib = ctypes.CDLL("/usr/local/cuda/lib64/libcudart.so.12")', [(1, "TA006")]),
    ('p = "C:\\\\CUDA\\\\bin\\\\libcublas.dll"', [(1, "TA006")]),
    ('lib = ctypes.CDLL("libcudart.so")', []),
])
def test_patterns(source, expected):
    assert codes(source) == expected


def test_ignore_comments_all_or_named_rules():
    source = '''
    a = x.type == "cuda"  # torchada: ignore
    b = x.type == "cuda"  # torchada: ignore[TA004]
    c = x.type == "cuda" and torch.version.cuda  # torchada: ignore[TA001, TA004]
    '''
    assert codes(source) == [(3, "TA001")]


def test_one_finding_per_rule_and_line_and_source_text_kept():
    found = check_source('ok = a.type == "cuda" or b.type == "cuda"\n', "m.py")
    assert [(f.path, f.line, f.code, f.source) for f in found] == [
        ("m.py", 1, "TA001", 'ok = a.type == "cuda" or b.type == "cuda"')]


def test_every_rule_says_why_and_fix():
    assert set(RULES) == {"TA00%d" % i for i in range(1, 7)}
    assert all(r.why and r.fix and r.name for r in RULES.values())


def test_syntax_error_propagates():
    with pytest.raises(SyntaxError):
        check_source("def broken(: cuda\n")


def test_sources_without_any_rule_word_are_not_parsed():
    assert check_source("def broken(:\n") == []      # no rule can match: not even parsed


@pytest.mark.parametrize("source, negated", [
    ('a = x.type == "cuda"', False), ('a = x.type != "cuda"', True),
    ('a = x.type not in ("cuda",)', True), ('a = "cuda" not in str(d)', True),
    ('a = not str(d).startswith("cuda")', True), ('a = str(d).startswith("cuda")', False),
])
def test_a_not_cuda_test_gets_the_negated_fix(source, negated):
    from torchada.lint.rules import fix_text

    (finding,) = check_source(source)
    assert finding.negated is negated
    text = fix_text(RULES[finding.code], finding.negated)
    assert text.startswith("not torchada.is_gpu_device(") is negated
