"""The settings table: every TORCHADA_* name has a row, parsers exist, boot agrees, doc current."""
import importlib
import re
from pathlib import Path

import pytest

from torchada._core import settings_table as table

ROOT = Path(__file__).resolve().parents[2]


def _names_in_source():
    names = set()
    for base in ("src", "hooks"):
        for path in (ROOT / base).rglob("*"):
            if path.suffix in (".py", ".h", ".cpp", ".pth", ".start") and path.is_file():
                names |= set(re.findall(r"\b_?(TORCHADA_[A-Z][A-Z0-9_]*)", path.read_text()))
    names |= set(re.findall(r"\b(TORCHADA_[A-Z][A-Z0-9_]*)",
                            (ROOT / "torchada_autoload.pth").read_text()))
    return names


def _row_names():
    """Row names; a family row ``PREFIX<op>`` stands for its prefix (what the code spells)."""
    return {re.sub(r"<[a-z]+>$", "", s.name) for s in table.SETTINGS}


def test_every_torchada_variable_in_the_source_has_a_row():
    rows = _row_names()
    found = _names_in_source()
    assert not (found - rows - set(table.NOT_SETTINGS)), sorted(found - rows - set(table.NOT_SETTINGS))
    assert not ({r for r in rows if r.startswith("TORCHADA_")} - found), "rows nobody reads"


@pytest.mark.parametrize("setting", table.SETTINGS, ids=lambda s: s.name)
def test_parser_named_in_the_row_exists(setting):
    module, func = setting.parser.split(":")
    assert callable(getattr(importlib.import_module(module), func))


def test_boot_keeps_the_same_accepted_values():
    import torchada_boot

    rows = {s.name: s for s in table.SETTINGS}
    assert tuple(torchada_boot.PLATFORM_VALUES) == rows["TORCHADA_PLATFORM"].values
    assert tuple(torchada_boot._OFF_WORDS) == rows["-X torchada"].values


def test_environment_doc_is_generated_from_the_table():
    assert (ROOT / "docs" / "environment.md").read_text() == table.markdown()
