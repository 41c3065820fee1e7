"""The data_parallel area in-process over the manifest fake: the _out bindings are added only
where torch_musa lacks them, and removed on revert."""
import types

from torchada._core import area_run
from torchada._core.journal import Journal
from torchada.areas import data_parallel


def test_adds_only_missing_bindings_and_reverts(fake_musa):
    own = object()
    fake_musa._MUSAC = types.SimpleNamespace(_broadcast=object(), _gather_out=own)
    journal = Journal("data_parallel")
    area_run.run(data_parallel, journal)
    try:
        assert callable(fake_musa._MUSAC._broadcast_out) and callable(fake_musa._MUSAC._scatter_out)
        assert fake_musa._MUSAC._gather_out is own  # torch_musa's own binding is kept
    finally:
        assert journal.revert() == []
    assert vars(fake_musa._MUSAC) == {"_broadcast": fake_musa._MUSAC._broadcast, "_gather_out": own}
