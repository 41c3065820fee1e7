"""torchada._core.native_cache in process: which folders it trusts, what a key holds, the
digest check and the one-step placement. The end-to-end faults: test_native_faults.py."""
import hashlib
import os
import platform
import stat

import pytest

from torchada._core import files, native_cache


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setattr(native_cache, "_SAFE_ANCESTORS", set())
    return str(tmp_path / "cache" / "torchada")


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_every_level_created_is_private_also_above_the_leaf(tmp_path, monkeypatch):
    monkeypatch.setattr(native_cache, "_SAFE_ANCESTORS", set())
    leaf = native_cache.trusted_dir("x", root=str(tmp_path / "a" / "b" / "root"))
    for path in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "root", leaf):
        assert mode(path) == 0o700, path


def test_trusted_dir_creates_private_levels(root):
    path = native_cache.trusted_dir("build", "x", root=root)
    assert path == os.path.join(root, "build", "x")
    for level in (root, os.path.dirname(path), path):
        assert mode(level) == 0o700


def test_group_writable_level_is_refused_with_the_fix(root):
    native_cache.trusted_dir("build", root=root)
    os.chmod(os.path.join(root, "build"), 0o770)
    with pytest.raises(native_cache.CacheRefused) as err:
        native_cache.trusted_dir("build", "x", root=root)
    assert err.value.folder == os.path.join(root, "build")
    assert "can be written by group or others (mode 770)" in str(err.value)
    assert "chmod go-w %s" % os.path.join(root, "build") in str(err.value)
    assert not os.path.exists(os.path.join(root, "build", "x"))  # nothing made below it


def test_symlinked_level_is_refused(root, tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    os.makedirs(root, mode=0o700)
    os.symlink(real, os.path.join(root, "build"))
    with pytest.raises(native_cache.CacheRefused, match="is a symbolic link"):
        native_cache.trusted_dir("build", root=root)


def test_folder_above_the_root_that_others_can_write_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(native_cache, "_SAFE_ANCESTORS", set())
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(native_cache.CacheRefused, match="which others can write"):
        native_cache.trusted_dir(root=str(shared / "torchada"))
    shared.chmod(0o1777)  # sticky, as /tmp: others cannot rename our folder away
    assert native_cache.trusted_dir(root=str(shared / "torchada"))


def test_missing_level_without_create(root):
    with pytest.raises(FileNotFoundError):
        native_cache.trusted_dir("build", root=root, create=False)
    assert not os.path.exists(root)


def test_keys_name_machine_abi_compiler_torch_and_torch_musa(tmp_path, monkeypatch):
    source = tmp_path / "a.cpp"
    source.write_text("int x;\n")
    fields = native_cache.platform_fields(["c++"], "2.7.1", "2.7.1")
    key = native_cache.source_key([str(source)], fields)
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    assert native_cache.source_key([str(source)], native_cache.platform_fields(
        ["c++"], "2.7.1", "2.7.1")) != key
    monkeypatch.undo()
    for other in (native_cache.platform_fields(["cc"], "2.7.1", "2.7.1"),
                  native_cache.platform_fields(["c++"], "2.9.1", "2.7.1"),
                  native_cache.platform_fields(["c++"], "2.7.1", "2.11.0")):
        assert native_cache.source_key([str(source)], other) != key
    source.write_text("int y;\n")
    assert native_cache.source_key([str(source)], fields) != key
    names = [f.split("=", 1)[0] for f in fields]
    assert names == ["machine", "ext", "abi", "compiler", "torch", "torch_musa"]


def test_compiler_identity_is_path_and_version_remembered(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(native_cache, "_COMPILERS", {})
    monkeypatch.setattr(native_cache, "_SAFE_ANCESTORS", set())
    counter = tmp_path / "calls"
    compiler = tmp_path / "bin" / "fakecc"
    compiler.parent.mkdir()
    compiler.write_text("#!/bin/sh\necho x >> %s\necho 'fakecc 9.1'\necho second line\n" % counter)
    compiler.chmod(0o755)
    first = native_cache.compiler_identity(str(compiler))
    assert first == "%s: fakecc 9.1" % compiler
    monkeypatch.setattr(native_cache, "_COMPILERS", {})   # a new process: the memo on disk
    assert native_cache.compiler_identity(str(compiler)) == first
    assert counter.read_text() == "x\n"
    assert native_cache.compiler_identity(str(tmp_path / "none")).startswith("missing:")


def _built(directory, data=b"\x7fELF" + b"x" * 9000):
    work = os.path.join(directory, ".build-1-a")
    os.makedirs(work, 0o700, exist_ok=True)
    path = os.path.join(work, "lib.so")
    with open(path, "wb") as f:
        f.write(data)
    return path, data


def test_place_then_check(root):
    directory = native_cache.trusted_dir("k", root=root)
    built, data = _built(directory)
    final = os.path.join(directory, "lib.so")
    native_cache.place(built, final)
    assert not os.path.exists(built) and open(final, "rb").read() == data
    digest, size = open(final + ".sha256").read().split()
    assert digest == hashlib.sha256(data).hexdigest() and int(size) == len(data)
    assert mode(final) == 0o700 and mode(final + ".sha256") == 0o600
    assert native_cache.check(final) is None


def test_check_refuses_short_changed_undigested_and_shared_files(root):
    directory = native_cache.trusted_dir("k", root=root)
    final = os.path.join(directory, "lib.so")
    assert native_cache.check(final) == "missing"
    native_cache.place(_built(directory)[0], final)
    os.truncate(final, 4000)
    assert "is 4000 bytes" in native_cache.check(final)
    native_cache.place(_built(directory)[0], final)
    with open(final, "r+b") as f:
        f.seek(100)
        f.write(b"!")
    assert native_cache.check(final) == "does not match its digest"
    native_cache.place(_built(directory)[0], final)
    os.chmod(final, 0o770)
    assert "written by others" in native_cache.check(final)
    os.chmod(final, 0o700)
    os.unlink(final + ".sha256")
    assert native_cache.check(final) == "has no digest beside it"
    os.unlink(final)
    os.symlink(os.path.join(directory, "elsewhere.so"), final)
    assert "cannot be opened" in native_cache.check(final)


def test_fetch_builds_once_then_reuses_and_rebuilds_a_bad_file(root, caplog):
    directory = native_cache.trusted_dir("k", root=root)
    calls = []

    def build_into(work):
        calls.append(work)
        path = os.path.join(work, "lib.so")
        with open(path, "wb") as f:
            f.write(b"library %d" % len(calls) * 100)
        return path

    final = native_cache.fetch(directory, "lib.so", build_into, "the test library")
    assert native_cache.fetch(directory, "lib.so", build_into, "the test library") == final
    assert len(calls) == 1 and not os.path.exists(calls[0])   # the work folder is gone
    os.truncate(final, 10)
    native_cache.fetch(directory, "lib.so", build_into, "the test library")
    assert len(calls) == 2 and native_cache.check(final) is None
    assert [n for n in os.listdir(directory) if n.startswith(".build-")] == []


def test_fetch_sweeps_folders_of_dead_builders_only(root):
    directory = native_cache.trusted_dir("k", root=root)
    tag = native_cache.host_tag()  # this host's folders (others': test_cache_housekeeping.py)
    dead = os.path.join(directory, ".build-999999999@%s-x" % tag)    # no such process
    alive = os.path.join(directory, ".build-%d@%s-y" % (os.getppid(), tag))
    os.mkdir(dead)
    os.mkdir(alive)
    native_cache.sweep(directory)
    assert not os.path.exists(dead) and os.path.exists(alive)


def test_fetch_in_an_unwritable_folder_is_a_refusal(root, monkeypatch):
    directory = native_cache.trusted_dir("k", root=root)

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(native_cache.tempfile, "mkdtemp", full)
    with pytest.raises(native_cache.CacheRefused, match="cannot be written"):
        native_cache.fetch(directory, "lib.so", lambda work: None, "the test library")


def test_the_system_cache_is_platformdirs_site_cache_unless_set(monkeypatch):
    from platformdirs import site_cache_dir

    monkeypatch.delenv("TORCHADA_SYSTEM_CACHE_DIR", raising=False)
    assert native_cache.system_cache_root() == site_cache_dir("torchada")
    monkeypatch.setenv("TORCHADA_SYSTEM_CACHE_DIR", "/srv/shared/torchada-cache")
    assert native_cache.system_cache_root() == "/srv/shared/torchada-cache"
    assert native_cache.cache_root() != "/srv/shared/torchada-cache"  # read, not built into
    monkeypatch.setenv("TORCHADA_BUILD_FOR_SYSTEM", "1")  # torchada build --system
    assert native_cache.cache_root() == "/srv/shared/torchada-cache"
