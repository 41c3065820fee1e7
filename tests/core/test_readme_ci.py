"""The README's two set-up commands are exactly what .ci/run runs."""

import re

from tests._fresh import ROOT


def readme_commands():
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return [b.strip() for b in blocks if b.strip().startswith("python3 -m venv")]


def test_ci_runs_exactly_the_readme_commands():
    commands = readme_commands()
    assert len(commands) == 2
    assert "torchada run --simulate" in commands[0] and "pytest" in commands[1]
    ci = [l for l in (ROOT / ".ci" / "run").read_text().splitlines()
          if l.startswith("python3 -m venv")]
    assert ci == commands


def test_top_level_layout_is_exactly_the_decided_one():
    import subprocess

    import pytest

    git = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if git.returncode != 0:  # a copy without .git (an sdist, a device machine): nothing tracked
        pytest.skip("not a git checkout")
    tracked = git.stdout
    top = {line.split("/", 1)[0] for line in tracked.splitlines() if line}
    assert top <= {"pyproject.toml", "torchada_autoload.pth", "src", "hooks", "tests", "benchmarks",
                   "docs", "README.md", "CHANGELOG.md", "LICENSE", ".ci", ".gitignore",
                   "setup.py", "MANIFEST.in"}, top  # setup.py builds the prefilter (issue 16)
