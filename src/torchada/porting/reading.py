"""Which bytes the porter may read and rewrite.

Only regular files are read: each is opened non-blocking and never through a symlink, and
checked with fstat before any read, so a FIFO, socket or device named ``x.cu`` never
blocks the run (or consumes someone's data). A file that changes while it is read, a
binary file (a NUL byte) and UTF-16/32 text are not ported; each is reported by name with
the reason (``NotPorted``'s message). Text that is not valid UTF-8 but has no NUL byte is
ASCII-compatible (Latin-1 comments, say): it is ported with those bytes kept as they are,
and named in a note.
"""
import codecs
import errno
import os
import stat

from .records import signature


class NotPorted(Exception):
    """A source the porter must not rewrite; the message is the reason shown to the user."""


_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NOFOLLOW", 0))


def kind_of(mode):
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def read_regular(path):
    """(bytes, stat result taken before the read) of the regular file ``path``, with
    os-level calls (no buffered file object: thousands of files per run); NotPorted for
    anything else or for a file that changed while it was read."""
    mode = os.lstat(path).st_mode  # a device is not even opened (opening can act)
    if not stat.S_ISREG(mode):
        raise NotPorted("%s, not a regular file: not read" % kind_of(mode))
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:  # replaced since the lstat
        if exc.errno == errno.ELOOP:
            raise NotPorted("a symbolic link: not followed") from None
        if exc.errno in (errno.ENXIO, errno.ENODEV):
            raise NotPorted("a socket or device, not a regular file: not read") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotPorted("%s, not a regular file: not read" % kind_of(st.st_mode))
        chunks = []
        size = st.st_size
        while True:
            chunk = os.read(fd, max(size, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            size = 1 << 16
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        if len(data) != st.st_size or signature(os.fstat(fd)) != signature(st):
            raise NotPorted("changed while it was being read: not ported (run torchada port "
                            "again)")
        return data, st
    finally:
        os.close(fd)


_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
         (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


def decode_source(raw):
    """(text, note or None) of a source's bytes, or NotPorted. A NUL byte means binary (or
    UTF-16/32 without a byte-order mark): rewriting ASCII names inside it would corrupt the
    file. Bytes that are not UTF-8 are carried through as surrogates (surrogateescape) and
    written back unchanged."""
    for bom, name in _BOMS:  # UTF-32 LE starts with the UTF-16 LE mark: checked first
        if raw.startswith(bom):
            raise NotPorted("%s text, not ported: convert it to UTF-8 (iconv -f %s -t UTF-8) "
                            "and port again" % (name, name))
    nul = raw.find(b"\0")
    if nul >= 0:
        raise NotPorted("binary (a NUL byte at offset %d): never rewritten; a UTF-16 or "
                        "UTF-32 source must be converted to UTF-8 first" % nul)
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return raw.decode("utf-8", "surrogateescape"), (
            "not valid UTF-8 (first at line %d, offset %d): ported as ASCII-compatible text, "
            "the other bytes kept as they are" % (line, exc.start))
