"""Stable-ABI compatibility headers: lazy, cache-only, idempotent, installed headers untouched."""
import os
import stat

from torchada.utils.cpp_extension import (patch_stable_header, stable_compat_box_header,
                                          stable_compat_include_dir, stable_overlay_dirs)

OLD_HEADER = """#pragma once
namespace torch::stable {
class Tensor {
 public:
  void* data_ptr() const;
  int64_t numel() const {
    return 0;
  }
};
}
"""


def test_public_paths_exist():
    assert os.path.isdir(stable_compat_include_dir())
    assert os.path.isfile(stable_compat_box_header())
    assert os.path.isfile(os.path.join(stable_compat_include_dir(), "torchada", "stable_compat.h"))


def test_patch_is_idempotent_and_adds_accessors():
    once = patch_stable_header(OLD_HEADER)
    assert "mutable_data_ptr() const" in once and "const_data_ptr() const" in once
    assert patch_stable_header(once) == once
    assert patch_stable_header("no anchor here") == "no anchor here"


def test_overlay_for_old_torch_leaves_read_only_installed_header_unchanged(tmp_path):
    inc = tmp_path / "torch_include"
    header = inc / "torch" / "csrc" / "stable" / "tensor_struct.h"
    header.parent.mkdir(parents=True)
    header.write_text(OLD_HEADER)
    os.chmod(header, 0o444)
    dirs = stable_overlay_dirs(torch_include=str(inc), torch_version="2.9.0",
                               cache=str(tmp_path / "cache"))
    assert header.read_text() == OLD_HEADER and stat.S_IMODE(os.stat(header).st_mode) == 0o444
    assert dirs[0].startswith(str(tmp_path / "cache")) and dirs[1] == stable_compat_include_dir()
    patched = os.path.join(dirs[0], "torch", "csrc", "stable", "tensor_struct.h")
    assert "mutable_data_ptr" in open(patched).read()
    assert stable_overlay_dirs(torch_include=str(inc), torch_version="2.9.0",
                               cache=str(tmp_path / "cache")) == dirs


def test_no_overlay_on_new_torch(tmp_path):
    assert stable_overlay_dirs(torch_include=str(tmp_path), torch_version="2.11.0") == []
    assert stable_overlay_dirs(torch_version="2.13.0") == []
