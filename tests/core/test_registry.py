"""Registry, finder and journal together, in fresh interpreters with test-only areas."""

from tests._fresh import FIXTURES, clean_env, fake_musa_env, run_python

# Activation with the test areas instead of the real ones (torchada's own hook stays off
# because nothing MUSA-like is on the path until the snippet adds the fake torch_musa).
START = """
import sys
sys.path[:0] = [%r, %r]
import torchada_boot
torchada_boot.decision = ('musa', 'test')   # the boot decided; the test picks the areas
from torchada._core import activation
from torchada._core.manifest import Area, Fix
# the test areas' manifest rows: gates and phases as data, like torchada/areas/manifest.py
ROWS = {"old_torch": dict(versions=(("torch", "<2.0"),)),
        "units": dict(fixes=(Fix("first", ""), Fix("broken", ""), Fix("last", ""))),
        "each": dict(per_trigger=True),
        "dist": dict(versions=(("torch", ">=2.7"),)),
        "early": dict(phase="before-backend"),
        "supplier": dict(provides=("supplied_mod", "colorsys", "sched"))}
AREAS = [Area(n, t, **ROWS.get(n, {})) for n, t in {AREAS}.items()]
reg = activation.activate_musa('test', AREAS, package='fake_areas')
""" % (str(FIXTURES / "fake_musa"), str(FIXTURES))


def start(areas, body, **env):
    code = START.replace("{AREAS}", repr(areas)) + body
    return run_python(code, env=clean_env(**env))


def states(proc):
    return dict(line.split("=", 1) for line in proc.stdout.split() if "=" in line)


def test_area_applies_on_trigger_and_reverts_to_identical_objects():
    proc = start({"counter": ("torch",)}, """
import torch.cuda
before = torch.cuda.device_count          # pending: torch not imported yet? (imported by torch.cuda)
import torch, torchada
from fake_areas import counter
print('state=' + reg.records[0].state, 'applied=%d' % len(counter.APPLIED))
print('mapped=%s' % (torch.cuda.device_count is torch.musa.device_count))
torchada.revert()
print('reverted=%s' % (torch.cuda.device_count.__module__ == 'torch.cuda'))
torchada.reapply()
print('again=%s' % (torch.cuda.device_count is torch.musa.device_count))
""")
    s = states(proc)
    assert s == {"state": "applied", "applied": "1", "mapped": "True", "reverted": "True",
                 "again": "True"}


def test_failing_area_is_rolled_back_whole_others_apply_one_warning():
    proc = start({"boom": ("torch",), "counter": ("torch",)}, """
import torch, torchada
r = {a.name: a for a in torchada.status().areas}
print('boom=' + r['boom'].state, 'counter=' + r['counter'].state)
print('marker=%s' % hasattr(torch, 'torchada_boom_marker'))
print('current=%s' % (torch.cuda.current_device.__module__ == 'torch.cuda'))
print('reason=' + r['boom'].reason.replace(' ', '_'))
""")
    s = states(proc)
    assert s["boom"] == "failed" and s["counter"] == "applied"
    assert s["marker"] == "False" and s["current"] == "True"
    assert s["reason"] == "RuntimeError:_boom_in_apply"
    warnings = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(warnings) == 1 and "'boom'" in warnings[0]
    assert "TORCHADA_DISABLE_AREAS=boom" in warnings[0]


def test_disable_list_and_star():
    for value, expected in (("counter", "skipped"), ("*", "skipped"), ("", "applied")):
        proc = start({"counter": ("torch",)}, """
import torch
print('state=' + reg.records[0].state)
""", TORCHADA_DISABLE_AREAS=value)
        assert states(proc)["state"] == expected, value


def test_gate_skips_with_reason_and_pending_until_trigger():
    proc = start({"old_torch": ("torch",), "dist": ("torch.distributed",)}, """
import sys
print('before=' + reg.records[1].state)
import torch
r = {a.name: a for a in __import__('torchada').status().areas}
print('old=' + r['old_torch'].state, 'why=' + r['old_torch'].reason.replace(' ', '_'))
print('dist=' + r['dist'].state)
""")
    s = states(proc)
    assert s["before"] == "pending" and s["old"] == "skipped"
    assert s["why"].startswith("torch_2.13") or s["why"].startswith("torch_2.")
    # torch imports torch.distributed itself, so the area applies once torch is complete.
    assert s["dist"] in ("applied", "pending")


def test_reentrant_area_import_fires_other_trigger():
    proc = start({"importer": ("torch",), "dist": ("torch.distributed",)}, """
import sys
sys.modules.pop('torch.distributed', None) if 'torch' not in sys.modules else None
import torch, torch.distributed as dist
print('importer=' + reg.records[0].state, 'dist=' + reg.records[1].state)
print('marker=%s' % getattr(dist, 'torchada_dist_marker', False))
""")
    assert states(proc) == {"importer": "applied", "dist": "applied", "marker": "True"}


def test_trigger_imported_before_activation_is_handled_at_once():
    code = """
import sys
import torch                       # an earlier sitecustomize imported torch
sys.path[:0] = [%r, %r]
import torchada_boot
torchada_boot.decision = ('musa', 'test')
from torchada._core import activation
from torchada._core.manifest import Area
reg = activation.activate_musa('test', [Area('counter', ('torch',))], package='fake_areas')
print('state=' + reg.records[0].state)
""" % (str(FIXTURES / "fake_musa"), str(FIXTURES))
    assert states(run_python(code))["state"] == "applied"


def test_two_threads_importing_torch_apply_each_area_once():
    proc = start({"counter": ("torch",)}, """
import threading
results, errors = [], []
def work():
    try:
        import torch
        results.append(torch.cuda.device_count())
    except Exception as e:
        errors.append(e)
threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join(timeout=120)
assert not any(t.is_alive() for t in threads), 'deadlock'
from fake_areas import counter
print('applied=%d' % len(counter.APPLIED), 'results=%s' % results, 'errors=%s' % errors)
""")
    s = states(proc)
    assert s["applied"] == "1" and s["results"] == "[2,", s["errors"] == "[]"


def test_finder_is_removable():
    proc = start({"counter": ("torch",)}, """
import sys, torch
from torchada._core import activation
activation.deactivate()
print('finders=%d' % sum(type(f).__name__ == 'TorchadaFinder' for f in sys.meta_path))
print('restored=%s' % (torch.cuda.device_count.__module__ == 'torch.cuda'))
""")
    assert states(proc) == {"finders": "0", "restored": "True"}


def test_status_cli_reports_every_area(tmp_path):
    proc = run_python("import sys; from torchada.cli import main; sys.exit(main(['status', '--json']))",
                      env=fake_musa_env(TORCHADA_DISABLE_AREAS="*"))
    import json

    report = json.loads(proc.stdout)
    from torchada.areas import AREA_MODULES

    assert report["platform"] == "musa" and report["active"] is True
    assert report["torch_musa_version"] == "2.7.1" and report["torch_version"]
    assert [a["name"] for a in report["areas"]] == list(AREA_MODULES)
    assert {a["state"] for a in report["areas"]} == {"skipped"}


def test_status_inactive_machine_reports_skipped_with_reason():
    proc = run_python("import torchada; r = torchada.status(); print(r.active, {a.state for a in r.areas}, r.reason)")
    assert proc.stdout.strip() == "False {'skipped'} no torch_musa found"


def test_python_m_torchada_status_and_bad_command():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "torchada", "status"],
                          env=fake_musa_env(TORCHADA_DISABLE_AREAS="*"), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "platform   : musa" in proc.stdout and "torch_musa : 2.7.1" in proc.stdout
    assert "disabled by TORCHADA_DISABLE_AREAS" in proc.stdout
    bad = subprocess.run([sys.executable, "-m", "torchada", "frobnicate"], env=clean_env(),
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown command 'frobnicate'" in bad.stderr


def test_before_backend_area_runs_before_torch_musa_and_notes_show_in_status():
    proc = start({"counter": ("torch",), "early": ("torch",)}, """
import torch, torchada
r = {a.name: a for a in torchada.status().areas}
print('early=' + r['early'].state, 'note=' + r['early'].note.replace(' ', '_'))
print('musa=%s' % ('torch_musa' in sys.modules))
""")
    assert states(proc) == {"early": "applied", "note": "saw_torch_musa:_[False]", "musa": "True"}


def test_area_supplies_modules_declines_and_a_failure_keeps_the_real_one():
    proc = start({"supplier": ("torch",)}, """
assert "colorsys" not in sys.modules and "sched" not in sys.modules
import supplied_mod, colorsys, sched
print('supplied=%s' % supplied_mod.SUPPLIED, 'colorsys=%s' % hasattr(colorsys, 'rgb_to_hsv'),
      'sched=%s' % hasattr(sched, 'scheduler'), 'recorded=%s' % sorted(reg.records[0].provided))
""")
    assert states(proc) == {"supplied": "True", "colorsys": "True", "sched": "True",
                            "recorded": "['supplied_mod']"}


def test_disabled_area_supplies_nothing():
    proc = start({"supplier": ("torch",)}, """
try:
    import supplied_mod
    print('r=imported')
except ModuleNotFoundError:
    print('r=missing')
""", TORCHADA_DISABLE_AREAS="supplier")
    assert states(proc) == {"r": "missing"}


def test_a_failing_fix_unit_is_rolled_back_alone_and_reported_failed():
    proc = start({"units": ("torch",)}, """
import torch, torchada
(area,) = torchada.status().areas
print('area=' + area.state, 'note=' + area.note.replace(' ', '_'))
for f in area.fixes:
    print(f['name'] + '=' + f['state'] + ':' + (f['reason'] or '').replace(' ', '_'))
print('written=' + ','.join(n for n in ('base', 'first', 'broken', 'last')
                            if hasattr(torch, 'torchada_units_' + n)))
torchada.revert()
print('after=' + ','.join(n for n in ('base', 'first', 'broken', 'last')
                          if hasattr(torch, 'torchada_units_' + n)))
""")
    assert states(proc) == {"area": "applied", "note": "first_ran",
                            "units.first": "applied:", "units.last": "applied:",
                            "units.broken": "failed:RuntimeError:_unit_broke",
                            "written": "base,first,last", "after": ""}
    assert proc.stderr.count("fix units.broken failed and was rolled back") == 1


def test_a_per_trigger_area_applies_once_for_each_trigger_module():
    proc = start({"each": ("colorsys", "sched")}, """
import torch, torchada, colorsys
(area,) = torchada.status().areas
print('first=' + ','.join('%s:%s' % (f['name'], f['state']) for f in area.fired))
import sched
(area,) = torchada.status().areas
print('both=' + ','.join('%s:%s' % (f['name'], f['state']) for f in area.fired))
print('notes=' + ','.join(f['note'].replace(' ', '_') for f in area.fired))
print('marked=%s,%s' % (colorsys.torchada_fired_here, sched.torchada_fired_here))
torchada.revert()
print('after=%s' % (hasattr(colorsys, 'torchada_fired_here') or hasattr(sched, 'torchada_fired_here')))
""")
    assert states(proc) == {"first": "colorsys:applied,sched:pending",
                            "both": "colorsys:applied,sched:applied",
                            "notes": "fired_by_colorsys,fired_by_sched",
                            "marked": "True,True", "after": "False"}


def test_an_area_in_the_old_journal_form_fails_its_load_naming_the_form():
    proc = start({"journal_style": ("torch",), "counter": ("torch",)}, """
import torch, torchada
r = {a.name: a for a in torchada.status().areas}
print('old=' + r['journal_style'].state, 'counter=' + r['counter'].state)
print('reason=' + r['journal_style'].reason.replace(' ', '_'))
""")
    s = states(proc)
    assert (s["old"], s["counter"]) == ("failed", "applied")
    assert s["reason"] == ("cannot_load_area_module:_AreaShapeError:_fake_areas.journal_style."
                           "apply(journal):_an_area_takes_apply(ctx),_the_context_the_registry_builds")
