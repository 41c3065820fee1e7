"""The operator table: its generator's readings of torch_musa's sources (yaml as the
codegen decides it, C++ registrations and macros, Python custom ops), an end-to-end run on
a small git repository, and the committed 2.7.1 table's shape."""
import json
import re
import subprocess
import textwrap

import pytest

from torchada.testing import optable
from torchada.testing.optable import _cpp_regs, _py_regs, _yaml_ops, generate

NATIVE = textwrap.dedent("""
    - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
      structured: True
      dispatch:
        CPU, CUDA: add_out
    - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
      structured_delegate: add.out
    - func: view_as_real(Tensor(a) self) -> Tensor(a)
      dispatch:
        CPU, CUDA: view_as_real
    - func: relu(Tensor self) -> Tensor
      dispatch:
        CPU: relu
      autogen: relu.out
    - func: abs(Tensor self) -> Tensor
      dispatch:
        CompositeExplicitAutograd: abs
    """)

PATCH = textwrap.dedent("""\
    --- a/aten/src/ATen/native/native_functions.yaml
    +++ b/aten/src/ATen/native/native_functions.yaml
    @@ -1,1 +1,3 @@
    +- func: gated_silu(Tensor input) -> Tensor
    +  variants: function
    """)

MUSA = textwrap.dedent("""
    - func: add.out
    - func: add.Tensor
    - func: view_as_real
      dispatch:
        PrivateUse1: view_as_real
    - func: relu.out
      dispatch:
        PrivateUse1: ReluOut
    - func: abs
    - func: gated_silu
      dispatch:
        PrivateUse1: GatedSilu
    - func: made_up
      dispatch:
        PrivateUse1: MadeUp
    """)


def _by_op(rows):
    return {r["op"]: r for r in rows}


def test_yaml_rows_follow_torch_musas_codegen():
    index = _yaml_ops.torch_index(NATIVE, _yaml_ops.patched_torch_entries(PATCH))
    rows = _by_op(_yaml_ops.rows(MUSA, index))
    assert rows["aten::add.out"]["kernel"] == "add_out"          # structured: CUDA's kernel
    assert rows["aten::add.out"]["how"] == "yaml structured (CUDA kernel)"
    assert rows["aten::add.Tensor"]["how"] == "yaml structured delegate"
    assert rows["aten::view_as_real"]["kernel"] == "view_as_real"
    assert "autogen of aten::relu" in rows["aten::relu.out"]["how"]
    assert rows["aten::abs"]["status"] == "not-registered"         # no dispatch, unstructured
    assert rows["aten::gated_silu"]["patched_torch"] is True
    assert rows["aten::made_up"]["status"] == "unknown" and "refuses" in rows["aten::made_up"]["reason"]
    assert rows["aten::add.out"]["source"] == _yaml_ops.YAML_PATH + ":2"
    assert {r["status"] for r in rows.values()} == {"registered", "not-registered", "unknown"}


def test_yaml_other_keys_and_structured_without_privateuse1():
    index = _yaml_ops.torch_index(NATIVE, [])
    rows = _yaml_ops.rows(textwrap.dedent("""
        - func: add.out
          dispatch:
            QuantizedPrivateUse1: qadd_out
        - func: view_as_real
          dispatch:
            SparsePrivateUse1: sparse_view
        """), index)
    keys = {(r["op"], r["key"]) for r in rows}
    # a structured op whose dispatch names only other keys still gets the CUDA kernel
    assert keys == {("aten::add.out", "QuantizedPrivateUse1"), ("aten::add.out", "PrivateUse1"),
                    ("aten::view_as_real", "SparsePrivateUse1")}


CPP = textwrap.dedent("""
    #define MY_REGISTER(lib, key, yaml, func) \\
      TORCH_LIBRARY_IMPL(lib, key, m) {        \\
        m.impl(yaml, &func);                   \\
      }
    // TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { m.impl("commented_out", f); }
    /* ADVANCED: MY_REGISTER(aten, PrivateUse1, "in_block_comment", F) */
    TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
      m.impl("random_.from", &RandomFrom);
      m.impl(
          TORCH_SELECTIVE_NAME("aten::_copy_from"), TORCH_FN(Copy));
      m.impl(NAME_FROM_MACRO, &Other);
    }
    TORCH_LIBRARY_IMPL(aten, CPU, m) {
      m.impl("empty.memory_format", &Empty);
    }
    TORCH_LIBRARY_IMPL(quantized, QuantizedPrivateUse1, m) {
      m.impl(TORCH_SELECTIVE_NAME("quantized::add"), TORCH_FN(QAdd<false>));
    }
    TORCH_LIBRARY_IMPL(_, AutogradPrivateUse1, m) {
      m.fallback(AUTOGRAD_FALLBACK);
    }
    MY_REGISTER(aten, PrivateUse1, "abs", Abs)
    """)


def test_cpp_registrations_blocks_macros_and_unknowns():
    rows, fallbacks, macros = _cpp_regs.scan_file("x.cpp", CPP)
    rows += _cpp_regs.expand_macro_uses("x.cpp", CPP, macros)
    found = {(r["op"], r["key"], r["status"]) for r in rows}
    assert found == {
        ("aten::random_.from", "PrivateUse1", "registered"),
        ("aten::_copy_from", "PrivateUse1", "registered"),
        ("aten::<NAME_FROM_MACRO>", "PrivateUse1", "unknown"),
        ("quantized::add", "QuantizedPrivateUse1", "registered"),
        ("aten::abs", "PrivateUse1", "registered"),
    }
    by_op = _by_op(rows)
    assert by_op["aten::random_.from"]["source"] == "x.cpp:9"
    assert by_op["aten::abs"]["source"] == "x.cpp:23" and "MY_REGISTER" in by_op["aten::abs"]["how"]
    assert fallbacks == [{"key": "AutogradPrivateUse1", "source": "x.cpp:21"}]


def test_python_registrations():
    src = textwrap.dedent("""
        import torch
        @torch.library.custom_op("musa::_fused_adam_", mutates_args=(), device_types="musa")
        def f(x: torch.Tensor) -> None: ...
        @torch.library.custom_op("musa::cuda_only", mutates_args=(), device_types="cuda")
        def g(x: torch.Tensor) -> None: ...
        lib = torch.library.Library("aten", "IMPL")
        lib.impl("gelu", f, "PrivateUse1")
        @torch.library.register_fake("aten::_fused_rmsnorm_forward")
        def fake(x): ...
        """)
    rows = _py_regs.scan_file("p.py", src)
    assert {(r["op"], r["key"]) for r in rows} == {("musa::_fused_adam_", "PrivateUse1"),
                                                  ("aten::gelu", "PrivateUse1")}


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd,
                   check=True, capture_output=True)


def _release_files(root):
    """A small release: the yaml, the native-functions patch and one C++ registration file."""
    (root / "torch_musa/csrc/aten/ops").mkdir(parents=True)
    (root / "torch_patches").mkdir()
    (root / _yaml_ops.YAML_PATH).write_text(MUSA)
    (root / _yaml_ops.NATIVE_PATCH).write_text(PATCH)
    (root / "torch_musa/csrc/aten/ops/Reg.cpp").write_text(CPP)
    return root


def test_generator_end_to_end_on_a_git_directory(tmp_path):
    repo = _release_files(tmp_path / "torch_musa")
    (repo / "torch_musa/optim.py").write_text(
        'import torch\n@torch.library.custom_op("musa::opt", mutates_args=(), device_types="musa")\n'
        'def f(x: torch.Tensor) -> None: ...\n')
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "x")
    _git(repo, "tag", "v9.9.9")
    native = tmp_path / "native_functions.yaml"
    native.write_text(NATIVE)
    out = tmp_path / "table.json"
    assert generate.main(["--source", str(repo), "--ref", "v9.9.9", "--native-functions",
                          str(native), "-o", str(out)]) == 0
    table = json.loads(out.read_text())
    assert table["release"] == "9.9.9" and re.fullmatch(r"[0-9a-f]{40}", table["source"]["commit"])
    ops = {(r["op"], r["key"]) for r in table["ops"] if r["status"] == "registered"}
    assert {("aten::add.out", "PrivateUse1"), ("aten::abs", "PrivateUse1"),
            ("musa::opt", "PrivateUse1"), ("aten::random_.from", "PrivateUse1")} <= ops
    assert table["fallbacks"] == [{"key": "AutogradPrivateUse1",
                                   "source": "torch_musa/csrc/aten/ops/Reg.cpp:21"}]
    assert "aten::gated_silu" in table["torch_ops"] and "aten::relu.out" in table["torch_ops"]


def test_generator_on_a_collected_tree_names_what_it_did_not_read(tmp_path):
    """A release collected file by file: the table says which files were not read, and the
    tree must name the commit it was asked for."""
    tree = _release_files(tmp_path / "tree")
    commit = "ab" * 20
    (tree / "collected.json").write_text(json.dumps(
        {"commit": commit, "not_read": {"torch_musa/csrc/aten/ops/Gone.cpp": "not stored"},
         "carried": {"torch_musa/csrc/aten/ops/Reg.cpp": "read at v9.9.8"}}))
    native = tmp_path / "native_functions.yaml"
    native.write_text(NATIVE)
    out = tmp_path / "table.json"
    assert generate.main(["--source", str(tree), "--ref", commit[:7], "--release", "9.9.9",
                          "--native-functions", str(native), "-o", str(out)]) == 0
    table = json.loads(out.read_text())
    assert table["source"]["commit"] == commit
    assert {"what": "torch_musa/csrc/aten/ops/Gone.cpp", "why": "not stored"} in table["not_read"]
    ops = {(r["op"], r["key"]) for r in table["ops"] if r["status"] == "registered"}
    assert ("aten::add.out", "PrivateUse1") in ops and ("aten::random_.from", "PrivateUse1") in ops
    read_at = {r["source"].rsplit(":", 1)[0]: r.get("read_at") for r in table["ops"]}
    assert read_at["torch_musa/csrc/aten/ops/Reg.cpp"] == "read at v9.9.8"
    assert read_at[_yaml_ops.YAML_PATH] is None
    with pytest.raises(SystemExit, match="holds commit"):
        generate.main(["--source", str(tree), "--ref", "cd" * 20, "--native-functions",
                       str(native), "-o", str(out)])
    (tree / "collected.json").unlink()
    with pytest.raises(SystemExit, match="collected.json"):
        generate.main(["--source", str(tree), "--ref", commit, "--native-functions",
                       str(native), "-o", str(out)])


def test_committed_2_7_1_table():
    table = optable.load("2.7.1")
    assert table["format"] == optable.FORMAT and table["source"]["ref"] == "v2.7.1"
    assert re.fullmatch(r"[0-9a-f]{40}", table["source"]["commit"])
    seen = set()
    for row in table["ops"]:
        assert row["status"] in ("registered", "not-registered", "unknown"), row
        assert re.fullmatch(r"torch_musa/\S+:\d+", row["source"]), row
        assert ("reason" in row) == (row["status"] != "registered"), row
        key = (row["op"], row["key"], row["source"])
        assert key not in seen
        seen.add(key)
    registered = optable.registered(table)
    for name in ("aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell_backward",
                 "aten::batch_norm_stats", "aten::batch_norm_gather_stats_with_counts",
                 "aten::add.Tensor", "aten::mm", "musa::_fused_adam_"):
        assert name in registered, name
    for name in ("aten::nonzero_static", "aten::histogram.bin_ct", "aten::linalg_matrix_exp",
                 "aten::special_modified_bessel_i0.out"):
        assert name not in registered and name in table["torch_ops"], name


def test_committed_2_9_1_post1_table_says_what_it_read():
    """Read from 5e25af7's yaml and the one registration file stored there; the files that
    registered kernels at v2.7.1 are carried from it and their rows say so."""
    table = optable.load("2.9.1.post1")
    assert table["source"]["commit"] == "5e25af754dfdacd5a6f9cc3c3cacd64b816b172e"
    rows = table["ops"]
    yaml_rows = [r for r in rows if r["source"].startswith(_yaml_ops.YAML_PATH + ":")]
    assert yaml_rows and all("read_at" not in r for r in yaml_rows)
    carried = [r for r in rows if "read_at" in r]
    assert carried and all(r["read_at"].startswith("read at v2.7.1") for r in carried)
    assert "QuantizedPrivateUse1" in {r["key"] for r in carried}
    assert any("native_functions.yaml.patch" in n["what"] for n in table["not_read"])
    registered = optable.registered(table)
    old = optable.registered(optable.load("2.7.1"))
    # what 5e25af7's yaml adds over v2.7.1 (issue 21's examples of 2.7.1's missing ops)
    for name in ("aten::special_chebyshev_polynomial_t.out", "aten::linalg_matrix_exp",
                 "aten::nonzero_static", "aten::segment_reduce", "aten::addmm.dtype",
                 "symm_mem::low_contention_all_gather"):
        assert name in registered and name not in old, name
    # and still lacks
    for name in ("aten::histogram.bin_ct", "aten::slow_conv3d_forward",
                 "aten::slow_conv_transpose3d"):
        assert name not in registered and name in table["torch_ops"], name
    assert "aten::_fused_rmsnorm_forward" in old and "aten::_fused_rmsnorm_forward" not in registered


@pytest.mark.parametrize("version, release", [("2.7.1", "2.7.1"), ("2.9.1", "2.7.1"),
                                              ("2.9.1.post1", "2.9.1.post1"),
                                              ("2.13.0", "2.9.1.post1"),
                                              ("2.11.0.post2", "2.9.1.post1"),
                                              ("2.0.0", "2.7.1")])
def test_release_lookup(version, release):
    assert optable.table_for(version) == release
    assert optable.registered_ops(version) == optable.registered(optable.load(release))
