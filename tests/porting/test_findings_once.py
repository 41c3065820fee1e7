"""One finding per kind and line: a line naming ``wmma::`` three times is one thing to fix."""
import json

from tests._fresh import clean_env, run_argv

KERNEL = ("#include <mma.h>\nusing namespace nvcuda;\n__global__ void k() {\n"
          "  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;\n"
          "  wmma::fill_fragment(a, 0.0f);\n}\n")


def test_a_line_with_three_wmma_names_is_reported_once(tmp_path):
    (tmp_path / "k.cu").write_text(KERNEL)
    proc = run_argv(["-m", "torchada", "port", str(tmp_path), "--json"], env=clean_env(),
                    check=False)
    found = [(f["line"], f["kind"]) for f in json.loads(proc.stdout)["findings"]]
    # the source names wmma:: three times on line 4 and once on line 5
    assert KERNEL.splitlines()[3].count("wmma::") == 3
    assert found == [(4, "wmma"), (5, "wmma")], found


def test_the_scan_keeps_one_per_kind_and_line():
    from torchada.porting.scan import located, scan_unsupported

    raw = scan_unsupported(KERNEL)
    assert len(raw) == 4  # every occurrence is still matched; the report folds them
    assert [(line, f.kind) for line, f in located(KERNEL, raw)] == [(4, "wmma"), (5, "wmma")]
