import logging
import types

import pytest

from torchada._core import settings
from torchada._core.gate import Gate, version_in
from torchada._core.journal import Journal


def test_journal_reverts_attributes_items_and_callbacks_in_reverse():
    owner = types.SimpleNamespace(a=1)
    mapping = {"k": "old"}
    calls = []
    j = Journal("t")
    j.setattr(owner, "a", 2)
    j.setattr(owner, "new", 3)
    j.setitem(mapping, "k", "new")
    j.setitem(mapping, "fresh", 1)
    j.on_revert(lambda: calls.append("cb"))
    assert (owner.a, owner.new, mapping) == (2, 3, {"k": "new", "fresh": 1})
    assert (j.writes, len(j)) == (4, 5)  # status reports writes; the callback is an undo step
    assert j.revert() == []
    assert owner.a == 1 and not hasattr(owner, "new")
    assert mapping == {"k": "old"} and calls == ["cb"]


def test_journal_class_attribute_is_not_copied_down_to_subclass():
    class Base:
        def f(self):
            return "base"

    class Child(Base):
        pass

    j = Journal("t")
    j.setattr(Child, "f", lambda self: "patched")
    assert Child().f() == "patched"
    j.revert()
    assert "f" not in Child.__dict__ and Child().f() == "base"


def test_journal_revert_collects_errors_and_keeps_going():
    undone = []
    j = Journal("t")
    j.on_revert(lambda: undone.append(1))
    j.on_revert(lambda: 1 / 0)
    errors = j.revert()
    assert len(errors) == 1 and isinstance(errors[0], ZeroDivisionError) and undone == [1]


@pytest.mark.parametrize("version,spec,expected", [
    ("2.7.1", ">=2.7", True), ("2.13.0+cpu", ">=2.7,<2.11", False),
    ("2.11.0.post1", "<2.11.0.post2", True), ("2.11.0.post2", "<2.11.0.post2", False),
    (None, ">=2.7", False), ("not-a-version", ">=1", False),
])
def test_version_in(version, spec, expected):
    assert version_in(version, spec) is expected


def test_gate_reasons():
    assert "platform is cuda" in Gate().check("cuda", "2.7.1", "2.7.1")
    assert "torch 2.6.0 not in >=2.7" == Gate(torch=">=2.7").check("musa", "2.6.0", None)
    assert "torch_musa (absent)" in Gate(torch_musa=">=2.7").check("musa", "2.7.1", None)
    assert Gate(torch=">=2.7", torch_musa=">=2.7").check("musa", "2.7.1", "2.7.1") is None


def test_gate_unknown_musa_version_counts_as_lowest():
    """What fix rows with ``unknown_version_arms`` rely on: an absent or non-PEP 440
    torch_musa version arms a range that starts at the oldest release, and only such a gate."""
    lowest = Gate(torch_musa="<2.9", unknown_musa_is_lowest=True)
    assert lowest.check("musa", "2.7.1", "not-a-version") is None
    assert lowest.check("musa", "2.7.1", None) is None
    assert lowest.check("musa", "2.7.1", "2.9.1") == "torch_musa 2.9.1 not in <2.9"
    plain = Gate(torch_musa="<2.9")
    assert plain.check("musa", "2.7.1", "not-a-version") == "torch_musa not-a-version not in <2.9"
    assert plain.check("musa", "2.7.1", None) == "torch_musa (absent) not in <2.9"


def test_gate_needs_names_every_missing_torch_musa_attribute(monkeypatch):
    import torch

    monkeypatch.setattr(torch, "musa", types.SimpleNamespace(amp=object(), graph=None),
                        raising=False)
    assert Gate(needs=("amp",)).check("musa", "2.7.1", "2.7.1") is None
    assert Gate(needs=("amp", "graph", "musart")).check("musa", "2.7.1", "2.7.1") == \
        "torch.musa.graph, torch.musa.musart is missing"


def test_disabled_areas_parsing(monkeypatch, caplog):
    known = {"devices", "amp", "memory"}
    monkeypatch.setenv(settings.DISABLE_AREAS_VAR, " devices , AMP;")
    assert settings.disabled_areas(known) == {"devices", "amp"}
    monkeypatch.setenv(settings.DISABLE_AREAS_VAR, "*")
    assert settings.disabled_areas(known) == known
    monkeypatch.setenv(settings.DISABLE_AREAS_VAR, "devices,nope,bad-name")
    with caplog.at_level(logging.WARNING, logger="torchada"):
        assert settings.disabled_areas(known) == {"devices"}
    assert len(caplog.records) == 1
    message = caplog.records[0].getMessage()
    assert "'nope'" in message and "'bad-name'" in message and "valid names" in message


PROPMODULE = r"""
import sys, torch.backends.cudnn
from torchada._core.journal import Journal
cudnn = sys.modules["torch.backends.cudnn"]
assert type(cudnn).__name__ != "module", type(cudnn)        # torch's PropModule, a ModuleType subclass
original = cudnn.is_available                                # forwarded to the wrapped module
j = Journal("probe")
j.setattr(cudnn, "is_available", lambda: True)
assert cudnn.is_available() is True
j.revert()
assert "is_available" not in cudnn.__dict__, "stale attribute left on the PropModule"
assert cudnn.is_available is original
print("OK")
"""


def test_journal_revert_on_a_module_subclass_leaves_nothing_behind():
    import subprocess
    import sys

    from tests._fresh import clean_env

    out = subprocess.run([sys.executable, "-c", PROPMODULE], env=clean_env(), capture_output=True, text=True)
    assert out.stdout.strip() == "OK", out.stdout + out.stderr
