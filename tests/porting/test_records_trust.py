"""The porter's records under the native cache's trust rules, and what a replaced file
keeps: a records folder others can write is refused (nothing recorded or reverted from it),
one others can read is made private; modes are restored without setuid / setgid / sticky /
write-for-others bits; a file edited between revert's hash and its rename is left alone;
owner, group and extended attributes are kept, or their loss is reported.

The owner checks run as a real non-root user (created here; the suite runs as root)."""
import os
import stat
import tempfile
import textwrap

import pytest

from tests._users import fresh_home, non_root_user, run_as

from torchada.porting import PortError, port_paths, revert_paths
from torchada.porting import revert as revert_mod
from torchada.porting.records import list_records, records_dir

CU = b"#include <cuda_runtime.h>\nvoid f() { cudaMalloc(0, 0); }\n"
PORTED_MARK = b"musa"


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def _one(tmp_path, data=CU, name="k.cu"):
    folder = tmp_path / "p"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return path


def test_a_records_folder_others_can_read_is_made_private(tmp_path, _private_cache):
    folder = _private_cache / "torchada" / "port-records"
    folder.mkdir(parents=True, mode=0o700)
    os.chmod(_private_cache / "torchada", 0o700)
    os.chmod(folder, 0o755)  # made by an older torchada, or by hand
    port_paths([_one(tmp_path)])
    assert _mode(folder) == 0o700 and len(list_records()) == 1


def test_a_records_folder_others_can_write_is_refused(tmp_path, _private_cache):
    """Someone who can write the folder could plant an index and an original that revert
    would write into the user's tree."""
    path = _one(tmp_path)
    port_paths([path])
    ported = path.read_bytes()
    folder = records_dir()
    os.chmod(folder, 0o770)
    with pytest.raises(PortError) as err:
        revert_paths([path])
    message = str(err.value)
    assert folder in message and "can be written by group or others" in message
    assert "chmod go-w %s" % folder in message and "reverts nothing" in message
    assert path.read_bytes() == ported  # nothing written back
    with pytest.raises(PortError):
        port_paths([_one(tmp_path, name="other.cu")])
    assert (tmp_path / "p" / "other.cu").read_bytes() == CU  # nothing ported either


def test_modes_never_get_setuid_setgid_sticky_or_write_for_others(tmp_path):
    path = _one(tmp_path)
    os.chmod(path, 0o6757)
    report = port_paths([path])
    assert _mode(path) == 0o755
    [(noted, note)] = report.notes
    assert noted == str(path) and "mode 6757 not kept" in note and "now 755" in note
    result = revert_paths([path])
    assert result.restored == [str(path)] and path.read_bytes() == CU
    assert _mode(path) == 0o755  # the record's 6757, masked
    [(noted, note)] = result.notes
    assert noted == str(path) and "mode 6757 not kept" in note


def test_a_file_edited_between_the_hash_and_the_rename_is_left_alone(tmp_path, monkeypatch):
    path = _one(tmp_path)
    port_paths([path])
    edited = path.read_bytes() + b"// the user's edit, saved during the revert\n"
    real = revert_mod.read_regular

    def read_then_edit(p):
        result = real(p)  # revert hashes this content (what the port wrote) ...
        if os.fspath(p) == str(path):
            with open(path, "wb") as fh:  # ... and the user saves an edit right after
                fh.write(edited)
        return result

    monkeypatch.setattr(revert_mod, "read_regular", read_then_edit)
    result = revert_paths([path])
    assert path.read_bytes() == edited  # the edit is kept
    assert result.restored == [] and result.conflicts == [
        (str(path), revert_mod.CHANGED_DURING_REVERT)]
    assert len(list_records()) == 1  # the record stays for a later revert


def test_extended_attributes_are_kept(tmp_path):
    if not hasattr(os, "setxattr"):
        pytest.skip("no extended attributes through os on this system")
    path = _one(tmp_path)
    try:
        os.setxattr(path, "user.torchada_test", b"kept")
    except OSError as exc:
        pytest.skip("this file system takes no user extended attributes (%s)" % exc.strerror)
    port_paths([path])
    assert PORTED_MARK in path.read_bytes()
    assert os.getxattr(path, "user.torchada_test") == b"kept"
    revert_paths([path])
    assert path.read_bytes() == CU and os.getxattr(path, "user.torchada_test") == b"kept"


def test_root_porting_another_users_file_keeps_its_owner(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    path = _one(tmp_path)
    os.chown(path, 4242, 4343)  # no account needed for an id
    report = port_paths([path])
    assert PORTED_MARK in path.read_bytes() and not report.notes
    assert (os.lstat(path).st_uid, os.lstat(path).st_gid) == (4242, 4343)
    revert_paths([path])
    assert path.read_bytes() == CU
    assert (os.lstat(path).st_uid, os.lstat(path).st_gid) == (4242, 4343)


# -- as a real non-root user -------------------------------------------------------------------
_CHILD = textwrap.dedent("""
    import sys
    from torchada.porting.cli import main
    sys.exit(main(sys.argv[1:]))
""")


@pytest.fixture(scope="module")
def user():
    with non_root_user("port") as made:
        yield made


def _users_tree(user, tmp):
    """A home with an empty cache and a source tree of the user's (fresh per test)."""
    fresh_home(user)
    tree = tempfile.mkdtemp(prefix=tmp, dir=user.base)
    path = os.path.join(tree, "k.cu")
    with open(path, "wb") as fh:
        fh.write(CU)
    for p in (tree, path):
        os.chown(p, user.uid, user.gid)
    return tree, path


def test_as_a_user_a_records_folder_of_another_user_is_refused(user):
    tree, path = _users_tree(user, "other-owner-")
    cache = os.path.join(user.base, "home", ".cache", "torchada")
    os.mkdir(cache, 0o700)
    os.chown(cache, user.uid, user.gid)
    records = os.path.join(cache, "port-records")
    os.mkdir(records, 0o755)
    os.chown(records, 4242, 4242)  # neither the user's nor root's, inside the user's cache
    proc = run_as(user, ["-c", _CHILD, tree])
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert ("not using the cache folder %s: it belongs to user id 4242, neither this user "
            "(%d) nor root" % (records, user.uid)) in proc.stderr
    assert open(path, "rb").read() == CU


def test_as_a_user_a_records_folder_the_group_can_write_is_refused(user):
    tree, path = _users_tree(user, "group-writable-")
    cache = os.path.join(user.base, "home", ".cache", "torchada")
    ported = run_as(user, ["-c", _CHILD, tree])
    assert ported.returncode == 0 and PORTED_MARK in open(path, "rb").read(), ported.stderr
    folder = os.path.join(cache, "port-records")
    assert os.lstat(folder).st_uid == user.uid and _mode(folder) == 0o700
    os.chmod(folder, 0o770)  # the group's other members could plant records now
    proc = run_as(user, ["-c", _CHILD, "--revert", tree])
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "can be written by group or others (mode 770)" in proc.stderr
    assert "chmod go-w %s" % folder in proc.stderr
    assert PORTED_MARK in open(path, "rb").read()  # not reverted from that folder


def test_as_a_user_a_lost_owner_is_reported(user):
    """A file of root's that the user may write through the group: the user's port makes
    a new file the user owns, and says so."""
    tree = tempfile.mkdtemp(prefix="shared-", dir=user.base)
    os.chown(tree, 0, user.gid)
    os.chmod(tree, 0o775)
    path = os.path.join(tree, "k.cu")
    with open(path, "wb") as fh:
        fh.write(CU)
    os.chown(path, 0, user.gid)
    os.chmod(path, 0o664)
    _users_tree(user, "unused-")  # the user's home and cache
    proc = run_as(user, ["-c", _CHILD, tree])
    assert proc.returncode == 0, proc.stderr
    assert PORTED_MARK in open(path, "rb").read()
    assert os.lstat(path).st_uid == user.uid
    assert ("note %s: owner 0:%d (now %d:%d: Operation not permitted) not kept"
            % (os.path.relpath(path, user.base), user.gid, user.uid, user.gid)) in proc.stderr
