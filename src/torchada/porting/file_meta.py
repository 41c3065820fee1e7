"""What a file the porter replaces keeps besides its bytes.

Port and revert write a new file beside the old one and rename it over it, so whatever the
old inode carried must be given to the new one: its owner and group (a root user porting a
tree of another user's files must not leave them root's), its extended attributes (ACLs
are ``system.posix_acl_*`` attributes on Linux, SELinux labels ``security.*``) and its
permission bits, except the ones torchada never sets: setuid, setgid, sticky and write for
others. What cannot be kept is returned as text, one item each, for the report.
"""
import errno
import os
import stat

# rwx for owner and group, r-x for others (never setuid, setgid, sticky or o+w)
KEPT_MODE_BITS = 0o775
# what a file system without extended attributes answers
_NO_XATTRS = (errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS)


def kept_mode(mode):
    """(permission bits to give the new file, a note when some of ``mode``'s were dropped)."""
    bits = stat.S_IMODE(mode)
    kept = bits & KEPT_MODE_BITS
    if kept == bits:
        return kept, None
    return kept, ("mode %o not kept as it was: torchada never sets setuid, setgid, sticky or "
                  "write-for-others bits (now %o; chmod it back if you meant it)" % (bits, kept))


def carry(source_st, source, target):
    """Give ``target`` (about to replace ``source``, which ``source_st`` describes) the
    owner, group and extended attributes of ``source``. Returns what could not be kept."""
    lost = []
    target_st = os.lstat(target)
    if (target_st.st_uid, target_st.st_gid) != (source_st.st_uid, source_st.st_gid):
        try:
            os.chown(target, source_st.st_uid, source_st.st_gid, follow_symlinks=False)
        except OSError as exc:
            lost.append("owner %d:%d (now %d:%d: %s)" % (
                source_st.st_uid, source_st.st_gid, target_st.st_uid, target_st.st_gid,
                exc.strerror))
    if not hasattr(os, "listxattr"):  # not Linux: no extended attributes through os
        return lost
    try:
        names = os.listxattr(source, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in _NO_XATTRS:
            lost.append("extended attributes (unreadable: %s)" % exc.strerror)
        return lost
    for name in names:
        try:
            value = os.getxattr(source, name, follow_symlinks=False)
            if _current(target, name) != value:  # a default label may already match
                os.setxattr(target, name, value, follow_symlinks=False)
        except OSError as exc:
            lost.append("extended attribute %s (%s)" % (name, exc.strerror))
    return lost


def _current(path, name):
    try:
        return os.getxattr(path, name, follow_symlinks=False)
    except OSError:
        return None
