"""Profiler attributes.  The real package replaces torch.profiler's anti-pattern matchers with
MUSA-aware ones; the simulator only provides the names (ProfilerActivity.MUSA is set in
torch_musa/__init__.py)."""
from torch.profiler import _pattern_matcher, _utils
from torch.profiler._pattern_matcher import FP32MatMulPattern, MatMulDimInFP16Pattern, report_all_anti_patterns
from torch.profiler._pattern_matcher import ExtraCUDACopyPattern as ExtraMUSACopyPattern
from torch.profiler._utils import BasicEvaluation


def set_profiler_attributes():
    return None
