"""`torchada doctor` lists the aten operators this torch_musa has no kernel for."""
import json

import pytest

from tests._fresh import SRC, clean_env, run_argv

pytest.importorskip("torchada.testing.optable")


def _operators(**env):
    proc = run_argv(["-m", "torchada", "doctor", "--json"], check=False, timeout=600,
                    env=clean_env(PYTHONPATH=SRC, TORCHADA_SIMULATE_MUSA="1", **env))
    data = json.loads(proc.stdout)
    [finding] = [f for f in data["findings"] if f["topic"] == "operators"]
    return finding, data["facts"]["probe"]["operators"]


@pytest.mark.parametrize("switch", [None, "0"])
def test_doctor_lists_the_missing_operators(switch):
    finding, facts = _operators(**({"TORCHADA_CPU_FALLBACK": switch} if switch else {}))
    # issue 21: in no table of torch_musa (2.7.1, 2.9.1.post1); computed before the fallback
    # registered them
    for name in ("aten::histogram.bin_ct", "aten::slow_conv3d_forward",
                 "aten::slow_conv_transpose3d"):
        assert name in facts["missing"] and name in finding["text"]
    assert "operator table of torch_musa" in facts["source"]
    if switch is None:
        assert finding["level"] == "info" and "run on the CPU" in finding["text"]
    else:
        assert finding["level"] == "warn" and "they raise" in finding["text"]
        assert "TORCHADA_CPU_FALLBACK" in finding["fix"]
