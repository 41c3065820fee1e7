import types
"""The torch.cuda table: every installed name classified, targets exist, doc is current."""
import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from torchada.areas import cuda_api_table as table
from torchada.areas import cuda_namespace as area
from torchada.areas._kit.cuda_rows import api_names

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "cuda_api_coverage.md"


def test_every_public_torch_cuda_name_has_a_row():
    names = api_names(torch.cuda)
    missing = sorted(n for n in names if table.row_for(n) is None)
    assert not missing, "torch %s names without a row: %s" % (torch.__version__, missing)
    assert set(torch.cuda.__all__) <= names


@pytest.mark.parametrize("sub", table.SUBMODULES)
def test_every_submodule_name_has_a_row_or_shares_the_top_level_object(sub):
    try:
        module = importlib.import_module("torch.cuda." + sub)
    except ImportError:
        pytest.skip("torch.cuda.%s absent in this torch" % sub)
    unclassified = []
    for name in api_names(module):
        obj = getattr(module, name)
        if table.row_for("%s.%s" % (sub, name)) is not None:
            continue
        if getattr(torch.cuda, name, None) is obj and table.row_for(name) is not None:
            continue
        unclassified.append(name)
    assert not unclassified, "torch.cuda.%s: %s" % (sub, unclassified)


def test_incidental_names_are_not_api():
    api = api_names(torch.cuda)
    assert not (set(table.INCIDENTAL) & api)
    public = {n for n in dir(torch.cuda) if not n.startswith("_")}
    # Other torch builds leak other helpers (torch 2.11 CUDA: typing.Union, pynvml): a module
    # from outside torch.cuda or a typing construct is incidental whatever its name.
    leaked = {n for n in public
              if isinstance(getattr(torch.cuda, n), types.ModuleType)
              and not getattr(torch.cuda, n).__name__.startswith("torch.cuda")
              or getattr(getattr(torch.cuda, n), "__module__", None) == "typing"}
    rest = public - api - set(table.INCIDENTAL) - {"comm"} - set(table.SUBMODULES) - leaked
    assert not rest, sorted(rest)


def test_rows_are_well_formed():
    for name, row in table.all_rows():
        assert row.kind in table.KINDS, name
        if row.kind == table.UNSUPPORTED:
            assert "{musa}" in row.target, name  # the message names the torch_musa version
        if row.kind == table.EMULATED:
            owner = importlib.import_module("torchada.areas." + row.area)
            assert row.target in owner.EMULATIONS, (name, row.area)


def test_every_row_owner_is_an_area_of_the_manifest():
    from torchada.areas.manifest import AREAS

    assert set(table.owners()) <= {a.name for a in AREAS}


def test_every_emulation_has_a_row_of_its_owner():
    for owner in table.owners():
        module = importlib.import_module("torchada.areas." + owner)
        rows = {r.target for _, r in table.all_rows()
                if r.kind == table.EMULATED and r.area == owner}
        assert set(getattr(module, "EMULATIONS", {})) <= rows, owner


def test_mapped_targets_exist_in_the_manifest(manifest):
    """No row maps to a torch.musa name that torch_musa 2.7.1 lacks, but rows naming the
    later release that added it (``since``)."""
    from tests import _musa_manifest as _manifest

    fake = _manifest.fake_musa(manifest)
    bad = []
    for name, row in table.all_rows():
        if row.kind != table.MAPPED or row.since:
            continue
        obj = fake
        for part in table.target_of(name, row).split("."):
            obj = getattr(obj, part, None)
        if obj is None:
            bad.append((name, table.target_of(name, row)))
    assert not bad


def test_unsupported_rows_are_missing_in_the_manifest(manifest):
    """An 'unsupported' row for a name torch.musa has would hide a working API."""
    names = manifest["torch.musa"]["names"]
    wrongly = [n for n, r in table.all_rows()
               if r.kind == table.UNSUPPORTED and "." not in n and n in names]
    assert not wrongly


def test_counts_leave_out_private_top_level_names_only():
    """counts() (the doc's totals) drops exactly the private top-level rows, per kind."""
    public, everything = table.counts(), table.counts(public_only=False)
    private = {kind: 0 for kind in table.KINDS}
    for name in table.PRIVATE:
        private[table.PRIVATE[name].kind] += 1
    assert sum(private.values()) > 0  # torch.cuda._get_device_index & co. have rows
    assert {k: everything[k] - public[k] for k in table.KINDS} == private
    assert sum(everything.values()) == len(table.TOP) + len(table.PRIVATE) + len(table.SUB)


def test_generated_doc_is_current():
    out = subprocess.run([sys.executable, "-m", "torchada.areas.cuda_api_table", "--markdown"],
                         capture_output=True, text=True, check=True).stdout
    assert DOC.is_file(), "run: python -m torchada.areas.cuda_api_table --markdown > %s" % DOC
    assert DOC.read_text() == out, \
        "docs/cuda_api_coverage.md is stale: python -m torchada.areas.cuda_api_table " \
        "--markdown > docs/cuda_api_coverage.md"


def test_table_module_imports_nothing_heavy():
    code = ("import sys, torchada.areas.cuda_api_table as t; t.render_markdown(); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-X", "torchada=off", "-c", code],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_rows_of_later_releases_are_missing_in_2_7_1(manifest):
    """A row saying a later torch_musa added its target: torch_musa 2.7.1 lacks it."""
    from tests import _musa_manifest as _manifest

    fake = _manifest.fake_musa(manifest)
    later = [(n, r) for n, r in table.all_rows() if r.since]
    assert len(later) == 8, later  # raw allocator (3), fraction getter, host stats (4)
    present = [n for n, r in later if hasattr(fake, table.target_of(n, r).split(".")[0])]
    assert not present
