"""The settings table: every TORCHADA_* name has a row and a line in docs/environment.md, every
switch is read through the table's parsers (one warning on a malformed value), the boot
module's stdlib copy agrees with the table, and -X torchada is seen by the .pth itself."""
import ast
import logging
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests._fresh import ROOT, clean_env, run_python, sim_env
from torchada._core import setting_parsers, settings
from torchada._core import settings_table as table

SRC = ROOT / "src"
NAME = re.compile(r"\b_?(TORCHADA_[A-Z][A-Z0-9_]*)")


def _names_in_source():
    """{name: [files]} of every TORCHADA_ name the shipped code spells."""
    found = {}
    paths = [p for base in ("src", "hooks") for p in (ROOT / base).rglob("*")
             if p.suffix in (".py", ".h", ".cpp", ".pth", ".start") and p.is_file()]
    for path in paths + [ROOT / "torchada_autoload.pth"]:
        for match in NAME.finditer(path.read_text()):
            spelled = match.group(0)
            found.setdefault(spelled if spelled.startswith("_") else match.group(1), []).append(
                str(path.relative_to(ROOT)))
    return found


def _row_for(name):
    try:
        return settings.row(name)
    except KeyError:
        return None


def test_every_torchada_name_in_the_source_has_a_row():
    missing = {n: files for n, files in _names_in_source().items() if _row_for(n) is None}
    assert not missing, "add rows to torchada/_core/settings_table.py: %s" % missing


def test_every_row_is_spelled_somewhere_in_the_source():
    spelled = set(_names_in_source())
    prefixes = {re.sub(r"<[a-z]+>$", "", s.name) for s in table.SETTINGS + table.INTERNAL}
    unread = {p for p in prefixes if p.startswith(("TORCHADA_", "_TORCHADA_"))
              and not any(n == p or (p.endswith("_") and n.startswith(p)) for n in spelled)}
    assert not unread, "rows nobody reads: %s" % unread


def test_every_name_is_on_the_environment_page():
    page = (ROOT / "docs" / "environment.md").read_text()
    rows = {_row_for(n).name for n in _names_in_source()}
    assert {r for r in rows if "`%s`" % r not in page} == set()
    for name in ("TORCHADA_MIRRORED_ENV", "_TORCHADA_RUN_SUMMARY", "TORCHADA_STABLE_ACCESSORS"):
        assert "`%s`" % name in page


def test_environment_doc_is_generated_from_the_table():
    assert (ROOT / "docs" / "environment.md").read_text() == table.markdown()


@pytest.mark.parametrize("setting", table.SETTINGS + table.INTERNAL, ids=lambda s: s.name)
def test_each_row_parses_with_a_callable(setting):
    parse = setting.parse
    assert callable(parse) and isinstance(parse.accepted, str) and parse.accepted
    for value in setting.values:
        if not value.startswith("<") and ".." not in value and value != "*":
            parse(value)  # every listed literal value is accepted


# -- every read goes through the table ------------------------------------------------------
# The start-up hook's stdlib fast path reads its own three rows (kept equal below); the
# settings module is the reader.
READERS_OF_THEIR_OWN = {"torchada_boot.py", "torchada/_core/settings.py"}


def _torchada_names(tree):
    """Module-level names bound to a TORCHADA_ string (``ROUTE_VAR = "TORCHADA_..."``)."""
    bound = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str) and NAME.match(node.value.value):
            bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return bound


def _names_a_setting(node, bound):
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and NAME.match(node.value) is not None
    if isinstance(node, ast.Name):
        return node.id in bound
    if isinstance(node, ast.BinOp):  # PREFIX + op
        return _names_a_setting(node.left, bound)
    return False


def _direct_reads(path):
    tree = ast.parse(path.read_text())
    bound = _torchada_names(tree)
    hits = []
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("get", "getenv") and node.args:
            key = node.args[0]
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            key = node.slice
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            key = node.left
        if key is not None and _names_a_setting(key, bound):
            hits.append("%s:%d" % (path.relative_to(SRC), node.lineno))
    return hits


def test_no_switch_is_read_around_the_table():
    hits = []
    for path in SRC.rglob("*.py"):
        if str(path.relative_to(SRC)) not in READERS_OF_THEIR_OWN:
            hits += _direct_reads(path)
    assert not hits, "read these through torchada._core.settings.read: %s" % hits


def test_the_scan_sees_a_direct_read(tmp_path):
    sample = SRC / "torchada" / "_probe_for_test.py"
    try:
        sample.write_text('import os\nVAR = "TORCHADA_X"\na = os.environ.get(VAR)\n'
                          'b = os.environ["TORCHADA_Y"]\nc = "TORCHADA_Z" in os.environ\n'
                          'd = os.environ.get("TORCHADA_P_" + "log")\n')
        assert [h.split(":")[1] for h in _direct_reads(sample)] == ["3", "4", "5", "6"]
    finally:
        sample.unlink()


# -- malformed values: one warning each -----------------------------------------------------
@pytest.fixture
def fresh_warnings(monkeypatch, caplog):
    monkeypatch.setattr("torchada._core.warn_once._SEEN", set())
    caplog.set_level(logging.WARNING, logger="torchada")
    return caplog


def _warnings_naming(caplog, name):
    return [r.getMessage() for r in caplog.records if name in r.getMessage()]


def test_device_route_malformed_warns_once(monkeypatch, fresh_warnings):
    from torchada.areas import _fastpath

    monkeypatch.setenv("TORCHADA_DEVICE_ROUTE", "fast")
    assert [_fastpath.requested(), _fastpath.requested()] == ["c", "c"]
    (message,) = _warnings_naming(fresh_warnings, "TORCHADA_DEVICE_ROUTE")
    assert "'fast'" in message and "c, python" in message
    monkeypatch.setenv("TORCHADA_DEVICE_ROUTE", " Python ")
    assert _fastpath.requested() == "python"


def test_op_override_switches_malformed_warn_once(monkeypatch, fresh_warnings):
    from torchada.areas import _op_overrides

    monkeypatch.setenv("TORCHADA_DISABLE_OP_OVERRIDE_log", "please")
    monkeypatch.setenv("TORCHADA_DISABLE_OP_OVERRIDE_multinomial", "1")
    monkeypatch.setenv("TORCHADA_DISABLE_OP_OVERRIDE_lgo", "1")  # no such op
    monkeypatch.setenv("TORCHADA_DEBUG_CPP_OPS", "2")
    assert table.OPS == _op_overrides.OPS  # the page lists the ops the code reads
    for _ in range(2):
        assert _op_overrides.enabled_ops() == ("log", "log_", "isfinite")
        assert _op_overrides.debug_enabled() is False
    assert len(_warnings_naming(fresh_warnings, "TORCHADA_DISABLE_OP_OVERRIDE_log=")) == 1
    assert len(_warnings_naming(fresh_warnings, "TORCHADA_DISABLE_OP_OVERRIDE_lgo")) == 1
    assert len(_warnings_naming(fresh_warnings, "TORCHADA_DEBUG_CPP_OPS")) == 1
    monkeypatch.setenv("TORCHADA_DEBUG_CPP_OPS", "yes")
    assert _op_overrides.debug_enabled() is True


def test_cpp_ops_verbose_malformed_warns_once(monkeypatch, fresh_warnings):
    monkeypatch.setenv("TORCHADA_CPP_OPS_VERBOSE", "loud")
    # native.build passes this very read as torch's ``verbose=`` argument
    assert [settings.read("TORCHADA_CPP_OPS_VERBOSE") for _ in range(2)] == [False, False]
    assert len(_warnings_naming(fresh_warnings, "TORCHADA_CPP_OPS_VERBOSE")) == 1


def test_a_name_without_a_row_is_a_programming_error():
    with pytest.raises(KeyError, match="settings_table"):
        settings.read("TORCHADA_NOT_A_SETTING")


def test_malformed_switches_warn_once_each_in_a_simulated_program():
    env = sim_env(TORCHADA_DEVICE_ROUTE="fast", TORCHADA_DISABLE_OP_OVERRIDE_log="please",
                  TORCHADA_DEBUG_CPP_OPS="2")
    proc = run_python("""
        import torch, torchada
        x = torch.ones(3, device="cuda")
        print(torch.log(x).tolist(), x.device.type)
    """, env=env)
    assert proc.stdout.split()[-1] == "musa"
    for name in ("TORCHADA_DEVICE_ROUTE", "TORCHADA_DISABLE_OP_OVERRIDE_log"):
        assert proc.stderr.count("%s=" % name) == 1, proc.stderr


# -- the start-up hook's own reads ----------------------------------------------------------
def test_boot_keeps_the_same_accepted_values(monkeypatch, capsys):
    import torchada_boot

    rows = {s.name: s for s in table.SETTINGS}
    assert tuple(torchada_boot.PLATFORM_VALUES) == rows["TORCHADA_PLATFORM"].parse.words
    assert tuple(torchada_boot._OFF_WORDS) == rows["-X torchada"].values
    simulate = rows["TORCHADA_SIMULATE_MUSA"].parse
    for word in simulate.words + ("bogus",):
        monkeypatch.setenv("TORCHADA_SIMULATE_MUSA", word)
        try:
            expected = simulate(word)
        except setting_parsers.BadValue:
            expected = None
            assert torchada_boot._simulation_request() is None
            assert "TORCHADA_SIMULATE_MUSA='bogus'" in capsys.readouterr().err
            continue
        assert torchada_boot._simulation_request() == expected, word
    xopt = rows["-X torchada"].parse
    for word in xopt.words:
        monkeypatch.setattr(sys, "_xoptions", {"torchada": word})
        assert torchada_boot._xoption() == xopt(word), word
    assert capsys.readouterr().err == ""


PTH_PROBE = "import site, sys; site.addsitedir(sys.argv[1]); print('torchada_boot' in sys.modules)"


def _through_the_pth(tmp_path, *options):
    """A fresh ``python -S`` that processes a site directory holding this checkout's .pth."""
    site_dir = tmp_path / "site"
    if not site_dir.exists():
        site_dir.mkdir()
        (site_dir / "a_src.pth").write_text(str(SRC) + "\n")
        (site_dir / "torchada_autoload.pth").write_text((ROOT / "torchada_autoload.pth").read_text())
    return subprocess.run([sys.executable, "-S", *options, "-c", PTH_PROBE, str(site_dir)],
                          env=clean_env(), capture_output=True, text=True)


def test_x_option_garbage_warns_from_the_pth_alone(tmp_path):
    proc = _through_the_pth(tmp_path, "-X", "torchada=garbage")
    assert proc.stdout.split() == ["True"]
    assert proc.stderr.count("-X torchada=garbage is not understood") == 1, proc.stderr
    assert proc.stderr.count("\n") == 1
    # Control: nothing asked for, nothing MUSA-like: the .pth loads nothing and says nothing.
    quiet = _through_the_pth(tmp_path)
    assert (quiet.stdout.split(), quiet.stderr) == (["False"], "")
    off = _through_the_pth(tmp_path, "-X", "torchada=off")
    assert (off.stdout.split(), off.stderr) == (["True"], "")
