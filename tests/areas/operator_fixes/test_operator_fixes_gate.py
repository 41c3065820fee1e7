"""The gates of the operator fix units, read from the manifest (no device needed)."""
import pytest

from torchada.areas.manifest import AREAS

FIXES = {fix.name: fix for area in AREAS if area.name == "operator_fixes" for fix in area.fixes}


@pytest.mark.parametrize("version, armed", [
    ("2.7.1", False), ("2.9.0", True), ("2.11.0.post1", True), ("2.11.0.post2", False),
    ("2.13.0", False), (None, False), ("dev-build", False)])
def test_log_fix_range(version, armed):
    assert (FIXES["log_f64_inplace"].gate().check("musa", "2.9.0", version) is None) == armed


@pytest.mark.parametrize("version, armed", [
    ("2.7.1", True), ("2.11.0.post1", True), ("2.12.9", True), ("2.13.0", False),
    ("2.14.0", False), (None, True), ("dev-build", True), ("", True)])
def test_mm_fix_range_unknown_counts_as_lowest(version, armed):
    assert (FIXES["mm_out_dtype"].gate().check("musa", "2.9.0", version) is None) == armed


def test_off_musa_nothing_arms():
    assert FIXES["mm_out_dtype"].gate().check("cuda", "2.9.0", None) is not None
