"""The Python files under the paths given, without virtual environments, caches and VCS."""
import os

SKIP_NAMES = frozenset((".git", ".hg", ".svn", "__pycache__", "node_modules", ".tox", ".nox",
                        ".mypy_cache", ".pytest_cache", "site-packages", ".eggs"))


class LintPathError(ValueError):
    pass


def _is_venv(directory):
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def python_files(paths, exclude_paths=frozenset(), exclude_names=frozenset()):
    """Yield each ``.py`` file (and each file given by name, whatever its suffix)."""
    for path in paths:
        if not os.path.exists(path):
            raise LintPathError("torchada lint: %s does not exist (give files or directories "
                                "of Python sources)" % path)
        if os.path.isfile(path):
            yield path
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs
                             if d not in SKIP_NAMES and d not in exclude_names
                             and os.path.realpath(os.path.join(root, d)) not in exclude_paths
                             and not _is_venv(os.path.join(root, d)))
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.join(root, name)
