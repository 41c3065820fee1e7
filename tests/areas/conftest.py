"""In-process area tests: torch.musa replaced by a name-only fake built from the torch_musa
2.7.1 manifest (tests/_musa_manifest.py), areas applied to the real torch.cuda, then reverted
and checked restored. Fresh-interpreter tests use tests/_fresh.py."""
import sys
import types

import pytest
import torch

from tests import _musa_manifest
from torchada._core import area_run
from torchada._core.journal import Journal
from torchada.areas import cuda_api_table as table
from torchada.areas import cuda_namespace, distributed, graphs, profiler

# The areas owning torch.cuda table rows exercised in-process, in manifest order.
TABLE_OWNERS = (cuda_namespace, graphs, profiler, distributed)


@pytest.fixture(scope="session")
def manifest():
    data = _musa_manifest.load()
    assert data is not None, "tests/data/torch_musa_2.7.1_api.json is missing from the checkout"
    return data


@pytest.fixture
def fake_musa(manifest):
    """torch.musa replaced by a name-only fake built from the manifest, for one test."""
    fake = _musa_manifest.fake_musa(manifest)
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


def modules():
    mods = [torch.cuda] + [sys.modules["torch.cuda." + s] for s in table.SUBMODULES
                           if "torch.cuda." + s in sys.modules]
    mods += [sys.modules[m] for m in ("torch.cuda.amp", "torch.backends.cuda",
                                      "torch.backends.cudnn") if m in sys.modules]
    return mods


def snapshot():
    return {m.__name__: dict(vars(m)) for m in modules()}


def assert_restored(before):
    for name, contents in before.items():
        now = vars(sys.modules[name]) if name in sys.modules else None
        changed = [k for k, v in contents.items() if now.get(k, object()) is not v]
        # (submodules imported meanwhile, by the test itself, are not writes of ours)
        added = sorted(k for k in set(now) - set(contents)
                       if not isinstance(now[k], types.ModuleType))
        assert not changed and not added, (name, changed, added)


@pytest.fixture
def applied(fake_musa):
    before = snapshot()
    journals = []
    for owner in TABLE_OWNERS:
        journals.append(Journal(owner.__name__.rsplit(".", 1)[-1]))
        area_run.run(owner, journals[-1])
    try:
        yield fake_musa
    finally:
        errors = [e for j in reversed(journals) for e in j.revert()]
        assert not errors
        assert_restored(before)
        assert cuda_namespace.coverage() is None
