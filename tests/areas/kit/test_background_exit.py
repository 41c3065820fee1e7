"""Interpreter exit and torch work on a background thread (``_kit/background.py``): exit
waits for the work under way (bounded), refuses work not yet started, and reports nothing
as a failure. Each case is a fresh interpreter that exits while its thread works."""
import time

from tests._fresh import SRC, clean_env, last_json, run_python

PROGRAM = """
import json, os, sys, time
from torchada.areas._kit import background
background.EXIT_WAIT_S = float(sys.argv[2])
marker, hold = sys.argv[1], float(sys.argv[3])
reports = []

def prepare():
    with background.torch_work():
        open(marker + ".began", "w").close()
        time.sleep(hold)
        open(marker + ".ended", "w").close()
    return "ready"

build = background.Background("test piece", prepare, on_done=lambda b: reports.append(b.error))
build.start()
while not os.path.exists(marker + ".began"):
    time.sleep(0.01)
print(json.dumps({"began": True}), flush=True)
"""


def _run(tmp_path, wait_s, hold_s):
    marker = str(tmp_path / "m")
    started = time.monotonic()
    proc = run_python(PROGRAM, script_args=[marker, wait_s, hold_s],
                      env=clean_env(PYTHONPATH=SRC))
    return proc, time.monotonic() - started, marker


def test_exit_waits_for_torch_work_under_way(tmp_path):
    proc, seconds, marker = _run(tmp_path, 30, 1.0)
    assert last_json(proc) == {"began": True}
    assert (tmp_path / "m.ended").exists(), "the interpreter exited in the middle of the work"
    assert proc.stderr.strip() == ""


def test_exit_wait_is_bounded(tmp_path):
    proc, seconds, marker = _run(tmp_path, 0.5, 60)
    assert not (tmp_path / "m.ended").exists()
    assert seconds < 30, seconds  # the bound, not the 60 s the work would take
    assert proc.returncode == 0 and proc.stderr.strip() == ""


LATE = """
import json, sys, threading
from torchada.areas._kit import background
reports = []
def prepare():
    with background.torch_work():
        return "never"

build = background.Background("late piece", prepare, on_done=lambda b: reports.append(b))
background._hook_exit()
background._at_exit()          # what the atexit hook does: from now on work is refused
build.start()
build.wait(10)
print(json.dumps({"done": build.done, "error": type(build.error).__name__,
                  "result": build.result, "reported": len(reports)}))
"""


def test_work_not_begun_at_exit_is_refused_and_not_reported(tmp_path):
    out = last_json(run_python(LATE, env=clean_env(PYTHONPATH=SRC)))
    assert out == {"done": True, "error": "Exiting", "result": None, "reported": 0}
