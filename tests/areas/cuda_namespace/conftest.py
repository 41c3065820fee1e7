"""Helpers for the torch.cuda namespace tests (table, fake-manifest apply, simulator)."""
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _manifest  # noqa: E402



@pytest.fixture(scope="session")
def manifest():
    data = _manifest.load()
    assert data is not None, "tests/data/torch_musa_2.7.1_api.json is missing from the checkout"
    return data


@pytest.fixture
def fake_musa(manifest):
    """torch.musa replaced by a name-only fake built from the manifest, for one test."""
    import torch

    fake = _manifest.fake_musa(manifest)
    fake.device_count = lambda: 2
    fake.current_device = lambda: 0
    calls = fake._calls = []
    fake.set_device = lambda device: calls.append(("set_device", device))
    missing = object()
    old = torch.__dict__.get("musa", missing)
    torch.musa = fake
    try:
        yield fake
    finally:
        if old is missing:
            del torch.musa
        else:
            torch.musa = old
