"""tests/_fresh.py's one exception to "a child that fails fails the test": torch's shutdown
abort after the child's code finished is reported (a TorchShutdownAbort warning), never
taken for success when the code did not finish or the abort says something else."""
import sys
from importlib.metadata import version

import pytest
from packaging.version import Version

from tests._fresh import SHUTDOWN_ABORT, TorchShutdownAbort, run_python

AT_EXIT = """
import atexit, os, sys
def _abort():
    sys.stderr.write(%r + "\\n"); sys.stderr.flush(); os.abort()
atexit.register(_abort)
""" % SHUTDOWN_ABORT
RACE_HERE = sys.version_info[:2] == (3, 11) and Version(version("torch")) >= Version("2.13")


def test_an_abort_after_the_code_finished_is_reported_where_torch_races():
    code = AT_EXIT + "print('work done')\n"
    if not RACE_HERE:
        with pytest.raises(AssertionError, match="failed"):
            run_python(code)
        return
    with pytest.warns(TorchShutdownAbort, match="torch's shutdown race"):
        proc = run_python(code)
    assert proc.returncode == -6 and proc.stdout.strip() == "work done"


def test_an_abort_before_the_code_finished_fails():
    code = "import sys, os\nsys.stderr.write(%r + '\\n'); sys.stderr.flush(); os.abort()\n" \
        % SHUTDOWN_ABORT
    with pytest.raises(AssertionError, match=r"failed \(-6\)"):
        run_python(code)


def test_another_abort_after_the_code_finished_fails():
    code = AT_EXIT.replace("%s" % SHUTDOWN_ABORT, "free(): double free detected") + "pass\n"
    with pytest.raises(AssertionError, match=r"failed \(-6\)"):
        run_python(code)


def test_a_parent_passing_the_abort_on_is_judged_by_what_it_printed():
    import subprocess

    from tests._fresh import reported_shutdown_abort

    proc = subprocess.CompletedProcess(["python", "-m", "torchada", "run", "x.py"], 250, "",
                                       "torchada summary\n%s\n" % SHUTDOWN_ABORT)
    assert reported_shutdown_abort(proc, finished=False) is False
    if RACE_HERE:
        with pytest.warns(TorchShutdownAbort):
            assert reported_shutdown_abort(proc, finished=True) is True
    else:
        assert reported_shutdown_abort(proc, finished=True) is False
    proc.returncode = 1
    assert reported_shutdown_abort(proc, finished=True) is False
