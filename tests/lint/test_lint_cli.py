"""``torchada lint`` as a command: output, --json, exit codes, bad input."""
import json

from tests._fresh import clean_env, run_argv

CODE = 'import torch\nif x.device.type == "cuda":\n    pass\nv = torch.version.cuda\n'


def lint(*args, **env):
    return run_argv(["-m", "torchada", "lint", *map(str, args)], env=clean_env(**env), check=False)


def test_findings_print_file_line_rule_why_fix_and_exit_1(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(CODE)
    proc = lint(tmp_path)
    assert proc.returncode == 1
    assert "%s:2:4: TA001 device-type-cuda:" % (tmp_path / "pkg" / "mod.py") in proc.stdout
    assert "fix: torchada.is_gpu_device(<device>)" in proc.stdout
    assert "%s:4:5: TA004" % (tmp_path / "pkg" / "mod.py") in proc.stdout
    assert "2 findings in 1 file" in proc.stderr


def test_clean_tree_exits_0_and_skips_venvs_and_caches(tmp_path):
    (tmp_path / "ok.py").write_text("x = 1\n")
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr\n")
    (venv / "bad.py").write_text(CODE)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "bad.py").write_text(CODE)
    proc = lint(tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""


def test_json_output(tmp_path):
    target = tmp_path / "m.py"
    target.write_text(CODE)
    proc = lint(target, "--json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert [(f["line"], f["code"], f["rule"]) for f in out["findings"]] == [
        (2, "TA001", "device-type-cuda"), (4, "TA004", "torch-version-cuda")]
    assert all(f["why"] and f["fix"] for f in out["findings"]) and out["unreadable"] == []


def test_select_and_ignore(tmp_path):
    target = tmp_path / "m.py"
    target.write_text(CODE)
    only = json.loads(lint(target, "--json", "--select", "TA004").stdout)["findings"]
    assert [f["code"] for f in only] == ["TA004"]
    proc = lint(target, "--ignore", "ta001,ta004")
    assert proc.returncode == 0


def test_bad_input_names_the_thing_and_the_fix(tmp_path):
    missing = lint(tmp_path / "nope")
    assert missing.returncode == 2 and "does not exist" in missing.stderr and "nope" in missing.stderr
    unknown = lint(tmp_path, "--select", "TA999")
    assert unknown.returncode == 2 and "TA999" in unknown.stderr and "known: TA001" in unknown.stderr


def test_unparsable_file_is_reported_and_the_rest_still_checked(tmp_path):
    (tmp_path / "broken.py").write_text("def f(: # cuda\n")
    (tmp_path / "m.py").write_text(CODE)
    proc = lint(tmp_path)
    assert proc.returncode == 1
    assert "broken.py: not checked (SyntaxError" in proc.stderr
    assert "m.py:2:4: TA001" in proc.stdout


def test_exclude_dirs_are_honoured(tmp_path):
    (tmp_path / "third_party").mkdir()
    (tmp_path / "third_party" / "m.py").write_text(CODE)
    assert lint(tmp_path, TORCHADA_EXCLUDE_DIRS="third_party").returncode == 0


def test_the_summary_counts_the_files_checked(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    proc = lint(tmp_path)
    assert proc.returncode == 0 and proc.stderr.strip() == "torchada lint: 0 findings in 2 files checked"
    (tmp_path / "c.py").write_text('if d.type != "cuda":\n    pass\n')
    proc = lint(tmp_path)
    assert proc.stderr.strip().endswith("1 finding in 1 file of 3 checked")
    assert "fix: not torchada.is_gpu_device(<device>)" in proc.stdout
