import pytest
import torch

import torchada
from tests._fresh import clean_env, run_python


@pytest.mark.parametrize("device,expected", [
    ("cuda", True), ("cuda:1", True), ("musa:0", True), ("cpu", False), ("meta", False),
    (torch.device("cpu"), False), (0, True), (3, True), (-1, False),
])
def test_is_gpu_device(device, expected):
    assert torchada.is_gpu_device(device) is expected


@pytest.mark.parametrize("bad", [None, 1.5, True, object()])
def test_is_gpu_device_rejects_other_types_naming_them(bad):
    with pytest.raises(TypeError, match="str, torch.device or int"):
        torchada.is_gpu_device(bad)


def test_platform_enum_values():
    assert [p.value for p in torchada.Platform] == ["cuda", "musa", "cpu"]
    assert str(torchada.Platform.MUSA) == "musa"


@pytest.mark.parametrize("forced", ["cuda", "cpu", "musa"])
def test_detect_platform_honours_forced_value(forced):
    out = run_python("""
        import torchada
        print(torchada.detect_platform().value, torchada.is_musa_platform(), torchada.is_cuda_platform())
    """, env=clean_env(TORCHADA_PLATFORM=forced)).stdout.split()
    assert out == [forced, str(forced == "musa"), str(forced == "cuda")]


def test_detect_platform_plain_machine_is_cuda_or_cpu_as_torch_sees_it():
    out = run_python("import torchada; print(torchada.detect_platform().value)").stdout.strip()
    assert out == ("cuda" if torch.cuda.is_available() else "cpu")


def test_cuda_home_is_musa_home_on_musa(tmp_path):
    out = run_python("import torchada; print(torchada.CUDA_HOME)",
                     env=clean_env(TORCHADA_PLATFORM="musa", MUSA_HOME=tmp_path)).stdout.strip()
    assert out == str(tmp_path)


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        torchada.nope


def test_musa_home_has_one_answer_when_only_mcc_is_on_path(tmp_path, monkeypatch):
    # Before: torchada.detection said None while the build integration found the toolkit.
    import os
    from torchada import detection
    from torchada.porting import toolkit as porting_toolkit

    toolkit = tmp_path / "musa-4.3"
    (toolkit / "bin").mkdir(parents=True)
    mcc = toolkit / "bin" / "mcc"
    mcc.write_text("#!/bin/sh\n")
    mcc.chmod(0o755)
    for var in ("MUSA_HOME", "MUSA_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", str(toolkit / "bin"))
    monkeypatch.setattr(os.path, "isdir",
                        lambda p, _isdir=os.path.isdir: False if p == "/usr/local/musa" else _isdir(p))
    assert porting_toolkit.musa_home is detection.musa_home
    assert detection.musa_home() == str(toolkit)
