"""Read files of a torch_musa source tree at one ref, from a bare git directory or a
checkout, through git itself (no work tree needed, and the ref is exact)."""
from __future__ import annotations

import os
import subprocess


class GitSource:
    def __init__(self, path: str, ref: str):
        self.path = os.path.abspath(path)
        # A bare repository (or a .git directory) is a git dir; a checkout has one inside.
        inner = os.path.join(self.path, ".git")
        self._git = ["git", "--git-dir", inner if os.path.exists(inner) else self.path]
        self.ref = ref
        self.commit = self._run("rev-parse", "--verify", ref + "^{commit}").strip()

    def _run(self, *args: str) -> str:
        return subprocess.run(self._git + list(args), check=True, capture_output=True,
                              text=True, encoding="utf-8", errors="replace").stdout

    def files(self, under: str) -> list[str]:
        """Every file path below `under` at the ref, sorted."""
        out = self._run("ls-tree", "-r", "--name-only", self.commit, "--", under)
        return sorted(line for line in out.splitlines() if line)

    def read(self, path: str) -> str:
        return self._run("show", "%s:%s" % (self.commit, path))

    def not_read(self) -> list:
        """Nothing: every file at the ref is there to read."""
        return []

    def carried(self, path: str):
        """None: every file is read at the ref itself."""
        return None
