"""tvm-ffi's JIT builder (what SGLang's jit_kernel load_jit calls) writes build.ninja for mcc
on MUSA, and for nvcc everywhere else.

tvm-ffi is tests/fixtures/tvm_ffi, a stand-in written from apache/tvm-ffi @620fece9
python/tvm_ffi/cpp/extension.py (its README says what it keeps). The build runs the real
``ninja`` with recording stand-ins for mcc and the host compiler (the simulator has no MUSA
compiler), so the command lines asserted are the ones ninja ran. The flags passed are
SGLang's (sgl-project/sglang python/sglang/jit_kernel/utils/compile.py @0e73912e load_jit:
``-std=c++20 -O3``; utils/arch.py @4034fc7c: ``-DSGL_CUDA_ARCH=<N> -std=c++20 -O3
--expt-relaxed-constexpr``; ``TVM_FFI_CUDA_ARCH_LIST`` set to the device's capability).
"""
import json
import os
import shutil
import sys

import pytest

from tests._fresh import FIXTURES, clean_env, last_json, run_python, sim_env
from torchada.porting import tvm_ffi_ninja

TVM_FFI = FIXTURES / "tvm_ffi"
TVM_INCLUDE = str(TVM_FFI / "tvm_ffi" / "include")
TVM_LIB = str(TVM_FFI / "tvm_ffi" / "lib")

STUB = '''#!{python}
import json, os, sys
with open(os.environ["STUB_LOG"], "a") as fh:
    fh.write(json.dumps([os.path.basename(sys.argv[0])] + sys.argv[1:]) + "\\n")
if "-o" in sys.argv:
    open(sys.argv[sys.argv.index("-o") + 1], "wb").close()
'''

PROGRAM = '''
import json, sys, torch, torchada
import tvm_ffi.cpp
cuda_flags = ["-DSGL_CUDA_ARCH=310", "-std=c++20", "-O3", "--expt-relaxed-constexpr"]
cuda_flags += json.loads(sys.argv[2])
so = tvm_ffi.cpp.build_inline(
    "sgl_kernel_jit_demo", cpp_sources=["int host_side();"],
    cuda_sources=["__global__ void add_one(float* x) { x[threadIdx.x] += 1.0f; }"],
    extra_cflags=["-std=c++20", "-O3"], extra_cuda_cflags=cuda_flags, extra_ldflags=["-lcuda"],
    build_directory=sys.argv[1])
area = [a for a in torchada.status().areas if a.name == "tvm_ffi_build"][0]
print(json.dumps({"so": so, "area": [area.state, area.note]}))
'''

needs_ninja = pytest.mark.skipif(shutil.which("ninja") is None, reason="no ninja on PATH")


@pytest.fixture
def toolchain(tmp_path):
    """A MUSA toolkit root whose bin/mcc records its command line, a recording host c++."""
    musa = tmp_path / "musa"
    for sub in ("bin", "include", "lib"):
        (musa / sub).mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for path in (musa / "bin" / "mcc", bin_dir / "stubcxx"):
        path.write_text(STUB.format(python=sys.executable))
        path.chmod(0o755)
    env = dict(PYTHONPATH=str(TVM_FFI), MUSA_HOME=str(musa), CXX="stubcxx",
               STUB_LOG=str(tmp_path / "log.jsonl"),
               PATH="%s%s%s" % (bin_dir, os.pathsep, os.environ.get("PATH", "")))
    return tmp_path, musa, env


def build(tmp_path, env, extra_cuda_flags=()):
    build_dir = tmp_path / "build"
    out = last_json(run_python(PROGRAM, script_args=[str(build_dir), json.dumps(
        list(extra_cuda_flags))], env=env))
    log = tmp_path / "log.jsonl"
    commands = [json.loads(line) for line in log.read_text().splitlines()]
    log.unlink()
    return out, (build_dir / "build.ninja").read_text(), commands


def test_contract_shape():
    from torchada.areas import tvm_ffi_build as area
    from torchada.areas.manifest import AREAS

    row = next(a for a in AREAS if a.name == "tvm_ffi_build")
    assert row.triggers == ("tvm_ffi.cpp.extension",)
    assert row.gate().platforms == ("musa",)  # NVIDIA / CPU machines: never applied
    assert "CUDA APIs made to work" in area.__doc__ and "torch_musa APIs relied on" in area.__doc__


@needs_ninja
def test_sglang_jit_build_on_the_simulator_runs_mcc_with_musa_flags(toolchain):
    tmp_path, musa, env = toolchain
    # load_jit's context: TVM_FFI_CUDA_ARCH_LIST is the device's capability, (3, 1) here
    out, ninja, commands = build(tmp_path, sim_env(TVM_FFI_CUDA_ARCH_LIST="3.1", **env))
    build_dir = tmp_path / "build"
    assert out["area"] == ["applied", "tvm-ffi build.ninja files are written for mcc "
                                      "(--offload-arch=mp_31)"]
    lines = ninja.split("\n")
    # the variables and the rule, exactly
    assert "nvcc = %s" % (musa / "bin" / "mcc") in lines
    assert ("cuda_cflags = -fPIC -O2 -DSGL_CUDA_ARCH=310 -std=c++20 -O3 -I%s "
            "--offload-arch=mp_31" % TVM_INCLUDE) in lines
    assert "ldflags = -shared -L%s -ltvm_ffi -L%s -lmusart -lmusa" % (TVM_LIB, musa / "lib") \
        in lines
    assert "  command = $nvcc -x musa -MMD -MF $out.d $cuda_cflags -c $in -o $out" in lines
    # the host side is tvm-ffi's, untouched
    assert "cxxflags = -std=c++17 -fPIC -O2 -std=c++20 -O3 -I%s" % TVM_INCLUDE in lines
    assert "  command = $cxx -MMD -MF $out.d $cxxflags -c $in -o $out" in lines
    # every dropped flag is named in the file with its reason
    assert [l.split(" (")[0] for l in lines if l.startswith("# torchada:")] == [
        "# torchada: dropped -gencode=arch=compute_31,code=sm_31",
        "# torchada: dropped --expt-relaxed-constexpr", "# torchada: dropped -std=c++17"]
    # what ninja ran
    mcc = [c for c in commands if c[0] == "mcc"]
    assert mcc == [["mcc", "-x", "musa", "-MMD", "-MF", "cuda_0.o.d", "-fPIC", "-O2",
                    "-DSGL_CUDA_ARCH=310", "-std=c++20", "-O3", "-I" + TVM_INCLUDE,
                    "--offload-arch=mp_31", "-c", str(build_dir / "cuda.cu"), "-o",
                    "cuda_0.o"]]
    link = [c for c in commands if "-shared" in c]
    assert link == [["stubcxx", "cuda_0.o", "cpp_0.o", "-shared", "-L" + TVM_LIB, "-ltvm_ffi",
                     "-L%s" % (musa / "lib"), "-lmusart", "-lmusa", "-o",
                     "sgl_kernel_jit_demo.so"]]
    assert out["so"] == str(build_dir / "sgl_kernel_jit_demo.so")


# nvcc's own options (NVIDIA's nvcc documentation, "Command Option Reference") and CUDA's
# libraries: none of them may reach mcc or the MUSA link.
NVCC_ONLY = ("-gencode", "--expt-relaxed-constexpr", "--generate-dependencies-with-compile",
             "--dependency-output", "-Xcompiler", "--use_fast_math", "-lineinfo", "-lcudart",
             "-lcuda")


@needs_ninja
def test_arch_comes_from_the_cards_without_nvidia_smi_and_nvcc_options_are_translated(toolchain):
    tmp_path, musa, env = toolchain
    # no TVM_FFI_CUDA_ARCH_LIST: tvm-ffi would ask nvidia-smi, which a MUSA machine lacks
    out, ninja, commands = build(tmp_path, sim_env(**env), ["--use_fast_math", "-lineinfo",
                                                             "-Xcompiler", "-Wno-unused"])
    (mcc,) = [c for c in commands if c[0] == "mcc"]
    assert [f for f in mcc if f.startswith("--offload-arch")] == ["--offload-arch=mp_31"]
    # nvcc's --use_fast_math means fast, less exact float math; clang's spelling is -ffast-math
    assert "-ffast-math" in mcc and "-Wno-unused" in mcc
    ran = [tok for c in commands for tok in c]
    assert not [tok for tok in ran if tok.split("=")[0] in NVCC_ONLY]
    # TORCH_MUSA_ARCH_LIST (torch_musa's own variable) chooses, as in torch_musa's loader
    out, ninja, commands = build(tmp_path, sim_env(TORCH_MUSA_ARCH_LIST="22", **env))
    (mcc,) = [c for c in commands if c[0] == "mcc"]
    assert [f for f in mcc if f.startswith("--offload-arch")] == ["--offload-arch=mp_22"]


GENERATE = '''
import json, torch, torchada
import tvm_ffi.cpp.extension as ext
text = ext._generate_ninja_build(name="m", extra_cflags=[], extra_cuda_cflags=["-O3"],
    extra_ldflags=[], extra_include_paths=[], sources=["/src/k.cu"])
print(json.dumps({"ninja": text.split("\\n"), "areas": [a.name for a in
      torchada.status().areas if a.name == "tvm_ffi_build" and a.state == "applied"]}))
'''


@pytest.mark.parametrize("where", ["cpu", "musa_area_disabled"])
def test_nvidia_or_cpu_machines_keep_nvcc(tmp_path, where):
    env = dict(PYTHONPATH=str(TVM_FFI), CUDA_HOME=str(tmp_path / "cuda"),
               TVM_FFI_CUDA_ARCH_LIST="9.0")
    env = clean_env(**env) if where == "cpu" else \
        sim_env(TORCHADA_DISABLE_AREAS="tvm_ffi_build", **env)
    out = last_json(run_python(GENERATE, env=env))
    assert out["areas"] == []
    cuda = tmp_path / "cuda"
    assert "nvcc = %s" % (cuda / "bin" / "nvcc") in out["ninja"]
    assert "cuda_cflags = -Xcompiler -fPIC -std=c++17 -O2 "\
        "-gencode=arch=compute_90,code=sm_90 -O3 -I%s" % TVM_INCLUDE in out["ninja"]
    assert "ldflags = -shared -L%s -ltvm_ffi -L%s -lcudart" % (TVM_LIB, cuda / "lib64") \
        in out["ninja"]
    assert not [l for l in out["ninja"] if l.startswith("# torchada")]


def translate(text, **kw):
    args = dict(mcc="/musa/bin/mcc", arch_flags=["--offload-arch=mp_22"],
                cuda_roots=["/usr/local/cuda"], musa_include="/musa/include",
                musa_libdir="/musa/lib64")
    args.update(kw)
    return tvm_ffi_ninja.translate(text, **args).split("\n")


def test_cuda_toolkit_paths_and_libraries_become_musa_ones():
    lines = translate("cxxflags = -O2 -I/usr/local/cuda/include -I/opt/dep\n"
                      "nvcc = /usr/local/cuda/bin/nvcc\n"
                      "cuda_cflags = -arch=sm_90 -I/usr/local/cuda/include "
                      "-I/usr/local/cuda/targets/x86_64-linux/include -I/opt/dep\n"
                      "ldflags = -shared -L/usr/local/cuda/lib64 -lcudart -lcublas -lcuda -lm")
    assert "cxxflags = -O2 -I/musa/include -I/opt/dep" in lines
    assert "nvcc = /musa/bin/mcc" in lines
    assert "cuda_cflags = -I/musa/include -I/opt/dep --offload-arch=mp_22" in lines
    assert "ldflags = -shared -L/musa/lib64 -lmusart -lmublas -lmusa -lm" in lines


@pytest.mark.parametrize("flag", ["-ptx", "--cubin", "--fatbin", "-dlink"])
def test_nvidia_only_outputs_stop_with_the_flag_and_the_fix(flag):
    with pytest.raises(tvm_ffi_ninja.UntranslatableFlag) as err:
        translate("nvcc = /usr/local/cuda/bin/nvcc\ncuda_cflags = -O2 %s" % flag)
    assert err.value.flag == flag
    assert repr(flag) in str(err.value) and "remove it from extra_cuda_cflags" in str(err.value)
    assert "TORCHADA_DISABLE_AREAS=tvm_ffi_build" in str(err.value)


def test_an_embedded_cubin_stops_with_the_fix():
    with pytest.raises(tvm_ffi_ninja.UntranslatableFlag, match="embed_cubin.*\\.cu source"):
        translate("nvcc = x\nrule embed_cubin\n  command = python -m tvm_ffi.utils.embed_cubin")
