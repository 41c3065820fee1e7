"""What a new user meets first on the command line (issue 17, part 9): the version, a status
that reads well off MUSA, in a pipe and with long names, and help that names every option."""
import re
import subprocess
import sys

from tests._fresh import reported_shutdown_abort, SRC, clean_env, run_argv, sim_env


def _torchada(*args, env=None):
    return run_argv(["-m", "torchada", *args], env=env or clean_env(PYTHONPATH=SRC),
                    check=False, timeout=600)


def _version():
    text = (SRC / "torchada" / "__init__.py").read_text()
    return re.search(r'__version__ = "([^"]+)"', text).group(1)


def test_version_option_and_status_line():
    proc = _torchada("--version")
    assert (proc.returncode, proc.stdout.strip()) == (0, "torchada %s" % _version())
    status = _torchada("status", "--no-import")
    assert "  torchada   : %s" % _version() in status.stdout.splitlines()


def test_status_off_musa_is_one_line_and_a_hint():
    proc = _torchada("status")
    lines = proc.stdout.splitlines()
    areas = [line for line in lines if line.startswith("  areas")]
    assert len(areas) == 1 and re.match(r"  areas +: all \d+ skipped - torchada inactive: "
                                        r"no torch_musa found$", areas[0]), proc.stdout
    assert [line for line in lines if "--simulate" in line and line.startswith("  hint")]
    assert not [line for line in lines if line.startswith("    ")]  # no per-area rows
    # the JSON still lists every area
    import json

    data = json.loads(_torchada("status", "--json").stdout)
    assert len(data["areas"]) == int(areas[0].split("all ")[1].split()[0]) > 20


def test_status_columns_hold_for_long_names():
    from torchada._core.report import AreaStatus, Report

    areas = [AreaStatus("devices", "applied", None),
             AreaStatus("an_area_with_a_rather_long_name", "skipped", "gate"),
             AreaStatus("graphs", "applied", None),
             AreaStatus("lightning", "applied", None, fired=[
                 {"name": "lightning.fabric.accelerators.cuda", "state": "applied",
                  "reason": None, "note": None},
                 {"name": "lightning.pytorch", "state": "skipped", "reason": "x", "note": None}])]
    text = str(Report("musa", True, "test", "2.7.1", "2.7.1", areas=areas))
    rows = [l for l in text.splitlines() if l.startswith("    ") and not l.startswith("      ")]
    assert len({re.search(r" (applied|skipped)", l).start() for l in rows}) == 1, text
    triggers = [l for l in text.splitlines() if l.startswith("      lightning")]
    assert len(triggers) == 2
    assert len({re.search(r" (applied|skipped)", l).start() for l in triggers}) == 1, text


def test_status_into_a_closed_pipe_ends_quietly():
    proc = subprocess.Popen([sys.executable, "-m", "torchada", "status"], env=sim_env(PYTHONPATH=SRC),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first line (``| head -0``)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=600) == 0
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def _options_handled(source, function):
    """The --options a hand-written parser compares against, from its own source."""
    body = source.split("def %s(" % function, 1)[1]
    return set(re.findall(r'opt (?:==|\.startswith\() ?"(--[a-z-]+)', body))


def test_run_help_names_every_option_run_accepts():
    options = _options_handled((SRC / "torchada" / "run_cmd.py").read_text(), "main")
    assert {"--simulate", "--cuda-unavailable", "--no-summary"} <= options
    help_text = _torchada("run", "--help").stdout
    assert {o for o in options if o not in help_text} == set()


def test_tune_moe_help_explains_every_option():
    text = _torchada("tune-moe", "--help").stdout
    lines = text.split("options:", 1)[1].split("\n\n")[0].splitlines()
    bare = [line.strip() for i, line in enumerate(lines)
            if re.match(r"  -", line) and not re.search(r"\S  +\S", line.strip())
            and not (i + 1 < len(lines) and re.match(r"\s{6,}\S", lines[i + 1]))]
    assert bare == [], bare


NO_CUDA_PROG = "import torch\nx = torch.ones(2, device='cuda')\nprint(x)\n"


def test_run_without_simulate_off_musa_says_no_musa_and_suggests_simulate(tmp_path):
    prog = tmp_path / "train.py"
    prog.write_text(NO_CUDA_PROG)
    proc = _torchada("run", str(prog))
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert "no MUSA device was found" in last and "torchada run --simulate %s" % prog in last
    # the same program on the simulated device runs, and gets no such line
    ok = _torchada("run", "--simulate", str(prog))
    # the summary is printed once the program has ended: after it, only torch's shutdown
    # abort may change the exit status (tests/_fresh.py, reported as a warning)
    assert ok.returncode == 0 or reported_shutdown_abort(ok, "torchada summary" in ok.stderr), \
        ok.stderr[-2000:]
    assert "no MUSA device" not in ok.stderr, ok.stderr[-2000:]
    # a failure unrelated to CUDA gets no hint either
    other = tmp_path / "other.py"
    other.write_text("raise ValueError('bad input')\n")
    proc = _torchada("run", str(other))
    assert proc.returncode == 1 and "no MUSA device" not in proc.stderr


def test_top_level_help_shows_run_options():
    run_line = [l for l in _torchada("--help").stdout.splitlines() if l.strip().startswith("run ")]
    assert run_line and "--cuda-unavailable" in run_line[0] and "--simulate" in run_line[0]
