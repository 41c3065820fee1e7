"""Regressions found by the property tests, pinned as examples."""

from torchada.porting.engine import port_text


def test_prefix_rule_name_ending_in_cuda_is_not_taken_for_a_dispatch_key():
    # hypothesis found this: the dispatch-key branch caught any name ending in CUDA.
    once = port_text("nvjpegFooCUDA x; NVJPEG_BarCUDA y;").text
    assert once == "mtjpegFooCUDA x; MTJPEG_BarCUDA y;"
    assert port_text(once).text == once
