"""Golden tests per domain and the documented mapping table."""
import pytest

from torchada.porting import port_text

GOLDEN = {
    "cuda_runtime": [
        ("cudaMalloc(&p, n); cudaStream_t s; cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s);",
         "musaMalloc(&p, n); musaStream_t s; musaMemcpyAsync(d, h, n, musaMemcpyHostToDevice, s);"),
        ("#include <cuda_runtime.h>\n#include <cuda_runtime_api.h>\n",
         "#include <musa_runtime.h>\n#include <musa_runtime_api.h>\n"),
        ("cudaGridDependencySynchronize();\ncudaTriggerProgrammaticLaunchCompletion( );",
         "((void)0);\n((void)0);"),
        ("if (e != cudaSuccess) printf(cudaGetErrorString(e));",
         "if (e != musaSuccess) printf(musaGetErrorString(e));"),
    ],
    "cuda_driver": [
        ("CUresult r = cuLaunchKernel(f, 1,1,1, 1,1,1, 0, s, args, 0); CUDA_SUCCESS;",
         "MUresult r = muLaunchKernel(f, 1,1,1, 1,1,1, 0, s, args, 0); MUSA_SUCCESS;"),
        ("#include <cuda.h>\n#include \"cuda.h\"\n", "#include <musa.h>\n#include \"musa.h\"\n"),
    ],
    "cublas": [
        ("cublasHandle_t h = at::cuda::getCurrentCUDABlasHandle(); cublasSetStream(h, s);",
         "mublasHandle_t h = at::musa::getCurrentMUSABlasHandle(); mublasSetStream(h, s);"),
        ("#include <cublas_v2.h>\n#include <cublasLt.h>\nCUBLAS_OP_N",
         "#include <mublas.h>\n#include <mublasLt.h>\nMUBLAS_OP_N"),
    ],
    "cudnn": [("#include <cudnn.h>\n", "#include <mudnn.h>\n")],
    "cufft": [("cufftHandle p; cufftExecC2C(p, a, b, CUFFT_FORWARD);",
               "mufftHandle p; mufftExecC2C(p, a, b, MUFFT_FORWARD);")],
    "curand": [("curandStatePhilox4_32_10_t st; curand_init(seed, i, 0, &st); curand_uniform4(&st);",
                "murand_state_philox4x32_10 st; murand_init(seed, i, 0, &st); murand_uniform4(&st);"),
               ("#include <curand_kernel.h>\n", "#include <murand_kernel.h>\n")],
    "cusolver": [("cusolverDnHandle_t h; cusolverDnCreate(&h);", "musolverDnHandle_t h; musolverDnCreate(&h);")],
    "cusparse": [("cusparseHandle_t h; cusparseSpMM(h);", "musparseHandle_t h; musparseSpMM(h);")],
    "nccl": [("ncclComm_t c; ncclAllReduce(a, b, n, ncclFloat, ncclSum, c, s); ncclGroupStart();",
              "mcclComm_t c; mcclAllReduce(a, b, n, mcclFloat, mcclSum, c, s); mcclGroupStart();"),
             ("#include <nccl.h>\n", "#include <mccl.h>\n")],
    "nvjpeg": [("#include <nvjpeg.h>\nnvjpegHandle_t h; NVJPEG_STATUS_SUCCESS; NVJPEG_FOUND",
                "#include <mtjpeg.h>\nmtjpegHandle_t h; MTJPEG_STATUS_SUCCESS; MTJPEG_FOUND"),
               ('#include "decode_jpegs_nvjpeg.h"\n#include "nvjpeg_utils.h"\n',
                '#include "decode_jpegs_nvjpeg.h"\n#include "nvjpeg_utils.h"\n')],
    "libtorch_stable": [
        ("aoti_torch_get_current_cuda_stream(0, &s); torch_set_current_cuda_stream(s, 0);"
         " torch_get_cuda_stream_from_pool(0, 1, &s); torch_cuda_stream_synchronize(s, 0);"
         " torch_get_current_cuda_blas_handle(&h);",
         "aoti_torch_get_current_musa_stream(0, &s); torch_set_current_musa_stream(s, 0);"
         " torch_get_musa_stream_from_pool(0, 1, &s); torch_musa_stream_synchronize(s, 0);"
         " torch_get_current_musa_blas_handle(&h);"),
        ("STABLE_TORCH_LIBRARY_IMPL(my_ext, CUDA, m) {", "STABLE_TORCH_LIBRARY_IMPL(my_ext, PrivateUse1, m) {"),
        ("STABLE_TORCH_LIBRARY_IMPL(\n    _C,\n    CUDA ,\n    m) {",
         "STABLE_TORCH_LIBRARY_IMPL(\n    _C,\n    PrivateUse1 ,\n    m) {"),
        ("STABLE_TORCH_LIBRARY_IMPL(ns,CUDA,m)", "STABLE_TORCH_LIBRARY_IMPL(ns,PrivateUse1,m)"),
    ],
    "aten": [("at::cuda::CUDAStream s = at::cuda::getCurrentCUDAStream(); if (t.is_cuda()) {}",
              "at::musa::MUSAStream s = at::musa::getCurrentMUSAStream(); if (t.is_privateuseone()) {}"),
             ("#include <ATen/cuda/CUDAContext.h>\n",
              "#include <torch_musa/csrc/aten/musa/MUSAContext.h>\n"),
             ("#include <torch/cuda.h>\n#include \"torch/cuda.h\"\n#include \"decode_jpegs_cuda.h\"\n",
              "#include <torch/musa.h>\n#include \"torch/musa.h\"\n#include \"decode_jpegs_cuda.h\"\n"),
             ("TORCH_LIBRARY_IMPL(aten, CUDA, m)", "TORCH_LIBRARY_IMPL(aten, PrivateUse1, m)"),
             ("t.device().type() == c10::DeviceType::CUDA || d == torch::kCUDA",
              "t.device().type() == c10::DeviceType::PrivateUse1 || d == torch::kPrivateUse1")],
    "c10": [("const c10::cuda::OptionalCUDAGuard g(dev); C10_CUDA_KERNEL_LAUNCH_CHECK();",
             "const c10::musa::OptionalMUSAGuard g(dev); C10_MUSA_KERNEL_LAUNCH_CHECK();"),
            ("#include <c10/cuda/CUDAGuard.h>\n", "#include <torch_musa/csrc/core/MUSAGuard.h>\n")],
    "thrust": [("thrust::sort(thrust::cuda::par.on(s), b, e);", "thrust::sort(thrust::musa::par.on(s), b, e);")],
    "cutlass": [("#include <cutlass/cutlass.h>\n#include \"cutlass/gemm/gemm.h\"\ncutlass::half_t x; CUTLASS_DEVICE",
                 "#include <mutlass/mutlass.h>\n#include \"mutlass/gemm/gemm.h\"\nmutlass::half_t x; MUTLASS_DEVICE")],
    "flashinfer": [("auto st = gen->philox_cuda_state(n); at::PhiloxCudaState p;",
                    "auto st = gen->philox_musa_state(n); at::PhiloxMusaState p;")],
    "cuda_arch": [
        ("#if __CUDA_ARCH__ < 800\n", "#if __MUSA_ARCH__ < 220\n"),
        ("#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)\n",
         "#if defined(__MUSA_ARCH__) && (__MUSA_ARCH__ >= 310)\n"),
        ("#if __CUDA_ARCH__ >= 530\n", "#if __MUSA_ARCH__ >= 210\n"),
        ("#if 800 <= __CUDA_ARCH__\n", "#if __MUSA_ARCH__ >= 220\n"),
        ("#if __CUDA_ARCH__ > 750\n", "#if __MUSA_ARCH__ >= 220\n"),
        ("#include <cuda/std/limits>\ncuda::std::numeric_limits<float>::max()",
         "#include <musa/std/limits>\nmusa::std::numeric_limits<float>::max()"),
        ("#ifdef __CUDACC__\n", "#ifdef __MUSACC__\n"),
    ],
    "compiler": [("CUDA_KERNEL_LOOP(i, n) {}", "MUSA_KERNEL_LOOP(i, n) {}")],
    "data_types": [("__nv_bfloat16 a; nv_bfloat16 b; __half h;\n#include <cuda_bf16.h>\n",
                    "__mt_bfloat16 a; mt_bfloat16 b; __half h;\n#include <musa_bf16.h>\n")],
}


@pytest.mark.parametrize("domain,case", [(d, c) for d, cases in GOLDEN.items() for c in cases])
def test_golden(domain, case):
    src, expected = case
    result = port_text(src)
    assert result.text == expected
    assert port_text(expected).text == expected  # idempotent
    if src != expected:
        assert domain in {e.domain for e in result.edits}


def test_every_domain_has_a_golden_case():
    from torchada.porting.rules import DOMAINS

    assert set(GOLDEN) == set(DOMAINS)


def test_already_correct_mapping_defines_are_kept():
    src = ("#define cudaEventDisableTiming musaEventDisableTiming\n"
           "#define cudaStream_t (musaStream_t)  // alias\n"
           "#define CU_MEMORYTYPE_DEVICE MU_MEMORYTYPE_DEVICE\n"
           "#define cudaCheck cudaCheckImpl\n"
           "#define MY_STREAM cudaStream_t\n")
    out = port_text(src).text
    lines = out.splitlines()
    assert lines[0] == "#define cudaEventDisableTiming musaEventDisableTiming"
    assert lines[1] == "#define cudaStream_t (musaStream_t)  // alias"
    assert lines[2] == "#define CU_MEMORYTYPE_DEVICE MU_MEMORYTYPE_DEVICE"
    assert lines[3] == "#define cudaCheck cudaCheckImpl"  # not CUDA API names: untouched
    assert lines[4] == "#define MY_STREAM musaStream_t"
    assert port_text(out).text == out


def test_whole_identifiers_only():
    src = "my_cudaMalloc(); cudaMallocX(); xcudaStream_t; cudaMalloc2(); s.cudaMalloc;"
    assert port_text(src).text == "my_cudaMalloc(); cudaMallocX(); xcudaStream_t; cudaMalloc2(); s.musaMalloc;"


def test_arch_equality_is_translated_and_reported():
    r = port_text("#if __CUDA_ARCH__ == 800\n#endif\n")
    assert r.text.startswith("#if __MUSA_ARCH__ == 220")
    assert [f.kind for f in r.findings] == ["arch-guard-equality"]


def test_symbolic_arch_guard_is_reported():
    r = port_text("#if __CUDA_ARCH__ >= MIN_ARCH\n")
    assert r.text == "#if __MUSA_ARCH__ >= MIN_ARCH\n"
    assert [f.kind for f in r.findings] == ["arch-guard-symbolic"]


def test_unsupported_constructs_are_reported_not_rewritten():
    from torchada.porting import scan_unsupported

    src = ('__device__ int f(int v) {\n'
           '  asm volatile("mov.u32 %0, %1;" : "=r"(v) : "r"(v));\n'
           '  v += __shfl_xor_sync(0xffffffff, v, 16);\n'
           '  cooperative_groups::this_grid().sync();\n'
           '  return v; }\n'
           '#define WARP_SIZE 32\n'
           'void g() { cudaLaunchCooperativeKernel((void*)k, 1, 1, 0); }\n'
           '// asm volatile in a comment is ignored\n')
    out = port_text(src).text
    assert 'asm volatile("mov.u32' in out and "__shfl_xor_sync(0xffffffff" in out
    assert "cudaLaunchCooperativeKernel" in out
    kinds = {(f.kind, src.count("\n", 0, f.offset) + 1) for f in scan_unsupported(src)}
    assert ("inline-ptx", 2) in kinds and ("warp-mask", 3) in kinds
    assert ("cooperative-groups", 4) in kinds and ("warp-size", 6) in kinds
    assert ("cooperative-launch", 7) in kinds
    assert not any(line == 8 for _, line in kinds)


def test_edits_carry_domain_and_offsets():
    src = "int a; cudaStream_t s; ncclComm_t c;"
    r = port_text(src)
    assert [(src[e.offset:e.offset + len(e.old)], e.new, e.domain) for e in r.edits] == [
        ("cudaStream_t", "musaStream_t", "cuda_runtime"), ("ncclComm_t", "mcclComm_t", "nccl")]


def test_every_report_has_gate_words_that_every_match_contains():
    """A report runs only on files holding one of its gate words: each match of its regex
    must contain one, or the gate would hide real findings."""
    import re

    from torchada.porting.rules.unsupported import GATES, REPORTS

    samples = {
        "inline-ptx": ["asm volatile(", "__asm__ __volatile__(", "asm("],
        "warp-mask": ["__shfl_xor_sync(", "__ballot_sync (", "__reduce_add_sync("],
        "warp-size": ["#define WARP_SIZE 32", "kWarpSize = 32", "constexpr int kWARP = 32"],
        "activemask": ["__activemask()"],
        "cooperative-groups": ["cooperative_groups", "this_grid()", "grid_group g", "this_cluster()"],
        "cooperative-launch": ["cudaLaunchCooperativeKernel", "cuLaunchCooperativeKernelMultiDevice"],
        "wmma": ["nvcuda::wmma::fragment", "wmma::mma_sync"],
        "tma": ["CUtensorMap m", "cuTensorMapEncodeTiled", "cp.async.bulk.tensor"],
        "cluster-launch": ["__cluster_dims__(2, 1, 1)"],
    }
    assert set(GATES) == {kind for kind, *_ in REPORTS} == set(samples)
    for kind, alternatives, _, _ in REPORTS:
        for text in samples[kind]:
            matches = [m for rx in alternatives for m in re.finditer(rx, text)]
            assert matches, (kind, text)
            for match in matches:
                assert any(word in match.group(0) for word in GATES[kind]), (kind, text)
        for rx in alternatives:
            assert re.match(r"[\\#A-Za-z_]", rx), (kind, rx)  # literal first (issue 14)
        # the word boundary the literal-first form keeps: nothing starts inside a longer name
        if kind != "warp-size":  # its kWarpSize form has no left boundary, as before
            assert [m.start() for rx in alternatives for m in re.finditer(rx, "x" + samples[kind][0])
                    if m.start() == 1] == [], kind


DIAGNOSE_CASES = {
    "plain": "cudaStream_t s; // cudaEvent_t in a comment\nunknownCudaThing(); CU_FOO_BAR x;\n",
    "rule writes a CUDA name": "CUTLASS_CUDA_DRIVER_WRAPPER_CALL(f);\nCUTLASS_HOST_DEVICE void g();\n",
    "includes": '#include "cutlass/cuda_host_adapter.hpp"\n#include <cutlass/cuda_host_adapter.hpp>\n',
    "reversed arch": "#if 800 <= __CUDA_ARCH__\ncudaFooUnknown(); cudaStream_t t;\n#endif\n",
    "strings": 'printf("cudaMalloc failed"); asm volatile("nop"); /* __shfl_sync( */\n',
    "unchanged": "int main() { return CUDA_NOT_A_RULE_X; }\n",
}


@pytest.mark.parametrize("name", sorted(DIAGNOSE_CASES))
def test_diagnose_answers_as_the_two_scans(name):
    """diagnose (one mask of the original) == scan_unsupported(original) and
    scan_unmapped(ported), each of which masks its own text."""
    from torchada.porting import port_text, scan_unmapped, scan_unsupported
    from torchada.porting.engine import line_of
    from torchada.porting.scan import diagnose

    text = DIAGNOSE_CASES[name]
    result = port_text(text)
    findings, unmapped = diagnose(text, result)
    assert [(f.offset, f.kind) for f in findings] == [(f.offset, f.kind) for f in scan_unsupported(text)]
    assert unmapped == {n: (h.count, line_of(result.text, h.first_offset))
                        for n, h in scan_unmapped(result.text).items()}


def test_hot_regions_cover_exactly_the_lines_holding_an_anchor():
    from torchada.porting.hot import ANCHORS, hot_regions

    text = "int a;\nfoo(cudaX);\nbar(nvY);\nplain\n#include <x>\nlast cu"
    lines = text.split("\n")
    hot = [text[s:e] for s, e in hot_regions(text)]
    assert hot == ["foo(cudaX);\nbar(nvY);", "#include <x>\nlast cu"]
    assert all(any(a in line for a in ANCHORS) == any(line in h for h in hot) for line in lines)


def test_a_project_identifier_without_an_anchor_turns_the_line_pass_off():
    """Keys must hold an anchor for the line-by-line pass; a project's own name may not."""
    from torchada.porting.engine import Porter

    porter = Porter({"my_gpu_alloc": "my_musa_alloc"})
    result, regions = porter.port_hot("x = my_gpu_alloc(1); cudaMalloc(p);\n")
    assert regions is None
    assert result.text == "x = my_musa_alloc(1); musaMalloc(p);\n"
    # and a file holding only that name (nothing CUDA-like) is still ported
    assert porter.port("x = my_gpu_alloc(1);\n").text == "x = my_musa_alloc(1);\n"


def test_a_multiline_dispatch_macro_is_ported_by_the_whole_text_pass():
    src = "TORCH_LIBRARY_IMPL(\n    myops,\n    CUDA,\n    m) {}\n"
    from torchada.porting.engine import default_porter

    result, regions = default_porter().port_hot(src)
    assert regions is None
    assert result.text == "TORCH_LIBRARY_IMPL(\n    myops,\n    PrivateUse1,\n    m) {}\n"
