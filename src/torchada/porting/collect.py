"""Which files a port run touches: source extensions, exclusions, protected system roots,
and the walk that refuses symlinks and toolkit directories before anything is written."""
import os
import sys

from .report import PortError

SOURCE_EXTS = frozenset((
    ".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++",
    ".inl", ".inc", ".ipp", ".tpp", ".txx", ".cuinl", ".ixx", ".cppm",
))
NATIVE_EXTS = frozenset((".mu", ".muh"))  # already MUSA: never touched
DEFAULT_EXCLUDED_NAMES = frozenset((
    ".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".venv", "venv", "node_modules",
    ".eggs", ".mypy_cache", ".pytest_cache",
))
EXCLUDE_VAR = "TORCHADA_EXCLUDE_DIRS"


# -- exclusions -----------------------------------------------------------------------------

def parse_exclude_dirs(value, cwd=None):
    """Parse a TORCHADA_EXCLUDE_DIRS value: entries separated by os.pathsep or commas.
    An entry with a path separator (or ~) is a directory path; otherwise it is a name that
    matches one whole path component. Returns (frozenset of real paths, frozenset of names).
    """
    paths, names = set(), set()
    if not value:
        return frozenset(), frozenset()
    cwd = cwd or os.getcwd()
    for raw in value.replace(os.pathsep, ",").split(","):
        entry = raw.strip()
        if not entry:
            continue
        bad = None
        if "\0" in entry:
            bad = "contains a NUL character"
        elif any(ch in entry for ch in "*?["):
            bad = "contains a glob character (globs are not supported)"
        elif entry in (".", ".."):
            bad = "is %r, which names no directory" % entry
        if bad:
            raise PortError(
                "%s entry %r %s. Accepted: directory paths or directory names, separated by "
                "%r or ','; e.g. %s=third_party%sbuild" % (EXCLUDE_VAR, entry, bad, os.pathsep,
                                                          EXCLUDE_VAR, os.pathsep))
        if os.sep in entry or (os.altsep and os.altsep in entry) or entry.startswith("~"):
            paths.add(os.path.realpath(os.path.join(cwd, os.path.expanduser(entry))))
        else:
            names.add(entry)
    return frozenset(paths), frozenset(names)


def exclusions_from_env(environ=None):
    from torchada._core.settings import read

    return parse_exclude_dirs(read(EXCLUDE_VAR, environ))


def protected_roots():
    """Directories the porter never writes into: toolkits, interpreters, site-packages."""
    import sysconfig

    roots = {"/usr/include", "/usr/local/include", "/usr/local/cuda", "/usr/local/musa",
             "/opt/cuda", "/opt/musa", "/usr/lib", "/usr/share"}
    for key in ("purelib", "platlib", "include", "platinclude", "stdlib", "platstdlib"):
        try:
            roots.add(sysconfig.get_paths()[key])
        except KeyError:
            pass
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        roots.add(os.path.join(prefix, "include"))
        roots.add(os.path.join(prefix, "lib"))
    for var in ("CUDA_HOME", "CUDA_PATH", "MUSA_HOME", "MUSA_PATH"):
        if os.environ.get(var):
            roots.add(os.environ[var])
    return sorted({os.path.realpath(r) for r in roots if r})


def within(path, root):
    """``path`` is ``root`` or lies below it (both real paths)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


# -- collection -----------------------------------------------------------------------------

def collect(paths, exclude=None, report=None):
    """Source files to port under ``paths`` (files or directories), sorted.

    Raises PortError for a missing path, a symlinked root or source, or a protected root.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    ex_paths, ex_names = exclude if exclude is not None else exclusions_from_env()
    ex_names = ex_names | DEFAULT_EXCLUDED_NAMES
    protected = protected_roots()
    files, symlinks = [], []
    for given in paths:
        given = os.fspath(given)
        absolute = os.path.abspath(given)
        if not os.path.lexists(absolute):
            raise PortError("%s does not exist: give an existing file or directory" % given)
        if os.path.islink(absolute):
            raise PortError("%s is a symbolic link: port the directory it points to (%s) "
                            "instead, so that files outside the tree are never rewritten"
                            % (given, os.path.realpath(absolute)))
        real = os.path.realpath(absolute)
        for root in protected:
            if within(real, root):
                raise PortError("%s is inside the system/toolkit directory %s, which the "
                                "porter never modifies: copy the sources into your project "
                                "first" % (given, root))
        if not os.path.isdir(real):  # a file (a FIFO or device too: reported when read)
            if _ext(real) in SOURCE_EXTS:
                files.append(real)
            elif report is not None:
                report.skipped.append((real, "not a C/C++/CUDA source"))
            continue
        for dirpath, dirnames, filenames in os.walk(real):
            keep = []
            for d in sorted(dirnames):
                full = os.path.join(dirpath, d)
                if d in ex_names or full in ex_paths:
                    if report is not None:
                        report.skipped.append((full, "excluded"))
                elif os.path.islink(full):
                    if report is not None:
                        report.skipped.append((full, "symbolic link to a directory: not followed"))
                else:
                    keep.append(d)
            dirnames[:] = keep
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                ext = _ext(name)
                if ext not in SOURCE_EXTS:
                    continue
                if os.path.islink(full):
                    symlinks.append(full)
                else:
                    files.append(full)
    if symlinks:
        raise PortError("refusing to port symbolic links (their targets may lie outside the "
                        "tree): %s. Replace them by copies, or exclude their directory with %s"
                        % (", ".join(symlinks[:5]) + (" ..." if len(symlinks) > 5 else ""),
                           EXCLUDE_VAR))
    return sorted(set(files))


def _ext(path):
    return os.path.splitext(path)[1].lower()
