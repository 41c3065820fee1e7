"""Read a torch_musa release from a folder holding some of its files at one commit, for
releases whose full history is not at hand (a partial tree collected file by file).

The folder carries ``collected.json``: the commit its files were read at; per path, what
could not be read there (``not_read``: listed in the table's ``not_read``, so the table never
speaks for a file nobody read); and files not available at that commit but read at an earlier
release (``carried``: path -> why; each row from such a file carries that text in
``read_at``, so its line numbers and contents are known to be the earlier release's).
"""
from __future__ import annotations

import json
import os

MANIFEST = "collected.json"


class TreeSource:
    def __init__(self, path: str, ref: str):
        self.path = os.path.abspath(path)
        manifest = os.path.join(self.path, MANIFEST)
        if not os.path.isfile(manifest):
            raise SystemExit("%s: not a git directory and no %s beside its files (a collected "
                             "tree names its commit there); pass a torch_musa git checkout"
                             % (path, MANIFEST))
        with open(manifest, encoding="utf-8") as fh:
            self.manifest = json.load(fh)
        self.commit = self.manifest["commit"]
        if not (self.commit.startswith(ref) or ref in ("HEAD", self.commit)):
            raise SystemExit("%s holds commit %s, not %s" % (path, self.commit, ref))
        self.ref = ref

    def files(self, under: str) -> list[str]:
        root = os.path.join(self.path, under)
        found = []
        for folder, _dirs, names in os.walk(root):
            for name in names:
                rel = os.path.relpath(os.path.join(folder, name), self.path)
                found.append(rel.replace(os.sep, "/"))
        return sorted(found)

    def read(self, path: str) -> str:
        with open(os.path.join(self.path, path), encoding="utf-8", errors="replace",
                  newline="") as fh:
            return fh.read()

    def carried(self, path: str):
        """Why `path` was read at another ref, or None when it was read at this one."""
        return self.manifest.get("carried", {}).get(path)

    def not_read(self) -> list:
        """The manifest's unread files, as ``not_read`` rows."""
        return [{"what": path, "why": why} for path, why in
                sorted(self.manifest.get("not_read", {}).items())]


def open_source(path: str, ref: str):
    """A git directory or checkout through git; any other folder as a collected tree."""
    from torchada.testing.optable._gitsource import GitSource
    is_git = os.path.exists(os.path.join(path, ".git")) or os.path.isfile(os.path.join(path, "HEAD"))
    return GitSource(path, ref) if is_git else TreeSource(path, ref)
