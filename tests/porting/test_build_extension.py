"""BuildExtension / CUDAExtension on the simulated MUSA platform, with stub compilers on
PATH that record their command lines (there is no MUSA compiler here)."""
import json
import os
import subprocess
import sys

import pytest

STUB = r'''#!{python}
import json, os, sys
with open(os.environ["STUB_LOG"], "a") as fh:
    fh.write(json.dumps([os.path.basename(sys.argv[0])] + sys.argv[1:]) + "\n")
if "-o" in sys.argv:
    out = sys.argv[sys.argv.index("-o") + 1]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    open(out, "wb").close()
'''

SETUP = '''
import torch.utils.cpp_extension as cpp
from torchada.areas import cpp_extension as area


class Journal:
    def setattr(self, owner, name, value):
        setattr(owner, name, value)

    def setitem(self, mapping, key, value):
        mapping[key] = value

    def on_revert(self, fn):
        pass


from torchada._core import area_run
area_run.run(area, Journal())
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="demo",
    ext_modules=[CUDAExtension(
        "demo_ext",
        sources=["csrc/kernel.cu", "csrc/ops.cpp", "csrc/native.mu"],
        libraries=["nvjpeg", "cudart"],
        extra_compile_args={{"cxx": ["-O2"],
                            "nvcc": ["-O3", "-gencode", "arch=compute_90,code=sm_90",
                                     "--use_fast_math", "--expt-relaxed-constexpr",
                                     "-Xcompiler", "-fno-strict-aliasing"]}})],
    cmdclass={{"build_ext": BuildExtension}},
)
'''


@pytest.fixture
def project(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("mcc", "stubcc", "stubcxx"):
        p = bin_dir / name
        p.write_text(STUB.format(python=sys.executable))
        p.chmod(0o755)
    proj = tmp_path / "proj"
    (proj / "csrc").mkdir(parents=True)
    (proj / "csrc" / "kernel.cu").write_text(
        "#include <cuda_runtime.h>\n#include \"kernel.cuh\"\n"
        "__global__ void k(float* x) {}\nvoid run(cudaStream_t s) { k<<<1, 1, 0, s>>>(0); }\n")
    (proj / "csrc" / "kernel.cuh").write_text("#pragma once\n#include <cuda_fp16.h>\n")
    (proj / "csrc" / "ops.cpp").write_text("#include <torch/extension.h>\n"
                                           "#include <ATen/cuda/CUDAContext.h>\n")
    (proj / "csrc" / "native.mu").write_text("// cudaMalloc stays in a native MUSA file\n")
    (proj / "setup.py").write_text(SETUP.format())
    musa = tmp_path / "musa"
    (musa / "include").mkdir(parents=True)
    (musa / "lib").mkdir()
    return tmp_path, proj, bin_dir, musa


def build(tmp_path, proj, bin_dir, musa):
    log = tmp_path / "log.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCHADA_", "TORCH_CUDA"))}
    env.update({
        "PATH": "%s%s%s" % (bin_dir, os.pathsep, env.get("PATH", "")),
        "STUB_LOG": str(log), "MUSA_HOME": str(musa), "TORCHADA_PLATFORM": "musa",
        "CC": "stubcc", "CXX": "stubcxx", "LDSHARED": "stubcc -shared",
        "LDCXXSHARED": "stubcxx -shared", "XDG_CACHE_HOME": str(tmp_path / "cache"),
    })
    env.pop("PYTORCH_MCC", None)
    proc = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=proj,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_build_extension_ports_in_place_and_compiles_with_mcc(project):
    tmp_path, proj, bin_dir, musa = project
    commands = build(*project)
    mcc = [c for c in commands if c[0] == "mcc"]
    assert len(mcc) == 2
    cu = next(c for c in mcc if c[c.index("-c") + 1].endswith("kernel.cu"))
    mu = next(c for c in mcc if c[c.index("-c") + 1].endswith("native.mu"))
    assert cu[1:3] == ["-x", "musa"] and "-x" not in mu
    for flag in ("--offload-arch=mp_31", "-O3", "-ffast-math", "-fno-strict-aliasing", "-fPIC",
                 "-DTORCH_EXTENSION_NAME=demo_ext", "-DTORCH_API_INCLUDE_EXTENSION_H"):
        assert flag in cu, flag
    for flag in ("--expt-relaxed-constexpr", "-gencode", "-Xcompiler", "-O2"):
        assert flag not in cu, flag
    assert any(f.startswith("-I") and f.endswith(os.path.join("torch", "include")) for f in cu)
    assert "-I" + str(musa / "include") in cu
    # The host compiler of ops.cpp is CXX on setuptools >= 72 and CC before (its
    # unixccompiler compiled C++ with compiler_so): find it by its source file.
    cxx = [c for c in commands if c[0] in ("stubcc", "stubcxx") and "-c" in c
           and c[c.index("-c") + 1].endswith("ops.cpp")]
    assert len(cxx) == 1 and "-O2" in cxx[0] and "-ffast-math" not in cxx[0]
    link = [c for c in commands if "-shared" in c]
    assert link and all(("-l" + lib) in link[-1]
                        for lib in ("mtjpeg", "musart", "musa_python", "c10", "torch"))
    assert "-lnvjpeg" not in link[-1] and "-lcudart" not in link[-1]
    # sources ported in place, names kept, native .mu untouched, no mirror directory
    assert "musaStream_t" in (proj / "csrc" / "kernel.cu").read_text()
    assert "#include \"kernel.cuh\"" in (proj / "csrc" / "kernel.cu").read_text()
    assert "musa_fp16.h" in (proj / "csrc" / "kernel.cuh").read_text()
    assert "torch_musa/csrc/aten/musa/MUSAContext.h" in (proj / "csrc" / "ops.cpp").read_text()
    assert "cudaMalloc" in (proj / "csrc" / "native.mu").read_text()
    assert sorted(os.listdir(proj / "csrc")) == ["kernel.cu", "kernel.cuh", "native.mu", "ops.cpp"]
    assert not (tmp_path / "proj" / "csrc_musa").exists()


def test_second_build_is_idempotent_and_revert_restores(project):
    tmp_path, proj, bin_dir, musa = project
    originals = {p.name: p.read_bytes() for p in (proj / "csrc").iterdir()}
    build(*project)
    ported = {p.name: p.read_bytes() for p in (proj / "csrc").iterdir()}
    build(*project)
    assert {p.name: p.read_bytes() for p in (proj / "csrc").iterdir()} == ported
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "torchada.porting", "--revert", "csrc"],
                          cwd=proj, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert {p.name: p.read_bytes() for p in (proj / "csrc").iterdir()} == originals


def test_nvcc_flag_translation_and_arch_lists():
    from torchada.porting.flags import arch_list, translate_libraries, translate_nvcc_flags

    flags, archs, dropped = translate_nvcc_flags(
        ["-gencode=arch=compute_80,code=sm_80", "-arch=sm_75", "--threads", "4",
         "-U__CUDA_NO_HALF_OPERATORS__", "-DUSE_CUDA_VERSION=CUDA_VERSION", "-lineinfo", "-O3"])
    assert archs == ["21", "22"] and flags == ["-DUSE_CUDA_VERSION=CUDA_VERSION", "-O3"]
    assert "--threads" in dropped and "-lineinfo" in dropped
    assert translate_nvcc_flags(["-DCUDART_VERSION=1"])[0] == ["-DMUSART_VERSION=1"]
    assert arch_list({"TORCH_CUDA_ARCH_LIST": "8.0;8.6;9.0+PTX"}) == ["22", "31"]
    assert arch_list({"TORCH_MUSA_ARCH_LIST": "21;22", "TORCH_CUDA_ARCH_LIST": "9.0"}) == ["21", "22"]
    with pytest.raises(ValueError, match="TORCH_MUSA_ARCH_LIST"):
        arch_list({"TORCH_MUSA_ARCH_LIST": "80"})
    assert translate_libraries(["cudart", "c10_cuda", "cublas", "nvjpeg", "m"]) == [
        "musart", "mublas", "mtjpeg", "m"]


def test_project_dirs_exclusions_apply_to_include_dirs_not_source_dirs(tmp_path):
    from setuptools import Extension

    from torchada.porting.build import project_dirs

    for d in ("csrc", "third_party/cutlass/include", "include"):
        (tmp_path / d).mkdir(parents=True)
    ext = Extension("x", [str(tmp_path / "third_party" / "k.cu"), str(tmp_path / "csrc" / "a.cu")],
                    include_dirs=[str(tmp_path / "third_party/cutlass/include"),
                                  str(tmp_path / "include"), "/usr/include"])
    (tmp_path / "third_party" / "k.cu").write_text("")
    dirs = project_dirs(ext, str(tmp_path), exclude=(frozenset(), frozenset({"third_party"})))
    assert dirs == sorted([str(tmp_path / "csrc"), str(tmp_path / "include"),
                           str(tmp_path / "third_party")])
    dirs = project_dirs(ext, str(tmp_path), exclude=(frozenset(), frozenset()))
    assert str(tmp_path / "third_party") in dirs and "/usr/include" not in dirs


SIM_SETUP = '''
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
import torchada
assert BuildExtension.__module__ == "torchada.porting.build", BuildExtension
setup(name="demo", ext_modules=[CUDAExtension("demo_ext", sources=["csrc/kernel.cu"],
      extra_compile_args={"cxx": [], "nvcc": ["-arch=sm_80"]})],
      cmdclass={"build_ext": BuildExtension})
'''


def test_build_through_real_activation_on_the_simulator(project):
    """No manual apply: the boot hook + finder apply the area (simulated torch_musa)."""
    tmp_path, proj, bin_dir, musa = project
    probe = subprocess.run(
        [sys.executable, "-c", "import torch.utils.cpp_extension, torchada, json;"
         "print(json.dumps(torchada.status().to_json() if False else str(torchada.status())))"],
        env=dict(os.environ, TORCHADA_SIMULATE_MUSA="1", XDG_CACHE_HOME=str(tmp_path / "cache")),
        capture_output=True, text=True, timeout=600)  # also builds the simulator's backend
    if probe.returncode != 0 or "cpp_extension          applied" not in probe.stdout:
        pytest.skip("auto-activation on the simulator is not available here")
    (proj / "setup.py").write_text(SIM_SETUP)
    log = tmp_path / "log.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCHADA_", "TORCH_CUDA"))}
    env.update({"PATH": "%s%s%s" % (bin_dir, os.pathsep, env.get("PATH", "")),
                "STUB_LOG": str(log), "MUSA_HOME": str(musa), "TORCHADA_SIMULATE_MUSA": "1",
                "CC": "stubcc", "CXX": "stubcxx", "LDSHARED": "stubcc -shared",
                "LDCXXSHARED": "stubcxx -shared", "XDG_CACHE_HOME": str(tmp_path / "cache")})
    proc = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=proj,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commands = [json.loads(line) for line in log.read_text().splitlines()]
    mcc = [c for c in commands if c[0] == "mcc"]
    assert len(mcc) == 1 and "--offload-arch=mp_22" in mcc[0] and mcc[0][1:3] == ["-x", "musa"]
    assert "musaStream_t" in (proj / "csrc" / "kernel.cu").read_text()
