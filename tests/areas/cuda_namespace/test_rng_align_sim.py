"""RNG alignment with NVIDIA GPUs (torch_musa's TORCH_RNG_ALIGN from 2.9.1.post1, passed through
by torchada): a CUDA program's seeded draws give CUDA's Philox stream for the named GPU.

References, independent of the simulator's vectorised kernels (torch_musa/_sim/philox.py):
Random123's published Philox4x32-10 known answers; a scalar emulation, written here, of
cuRAND's curand_init / curand4 state machine run thread by thread through PyTorch's
grid-stride loop; and, where recorded, an NVIDIA GPU's own draws
(tests/data/nvidia_rng.json, written by tests/data/record_nvidia_rng.py)."""
import importlib.util
import json
import math
import pathlib
import struct

import pytest

from tests._fresh import SIMROOT, last_json, run_sim
from tests._releases import importable_or_skip

NVIDIA = pathlib.Path(__file__).resolve().parents[2] / "data" / "nvidia_rng.json"
M32 = 0xFFFFFFFF


def _philox_module():
    path = pathlib.Path(SIMROOT) / "torch_musa" / "_sim" / "philox.py"
    spec = importlib.util.spec_from_file_location("sim_philox", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the scalar reference: cuRAND's Philox state, one thread at a time ------------------------
def philox_scalar(ctr, key):
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for r in range(10):
        p0, p1 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ c3 ^ k1) & M32, p0 & M32
        if r < 9:
            k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
    return c0, c1, c2, c3


class CurandState:
    """curandStatePhilox4_32_10_t: curand_init(seed, subsequence, offset), then curand4()."""

    def __init__(self, seed, subsequence, offset):
        self.key = (seed & M32, (seed >> 32) & M32)
        lo = offset // 4  # torch's offsets are multiples of 4: no partial output word
        assert offset % 4 == 0
        self.ctr = [lo & M32, (lo >> 32) & M32, subsequence & M32, (subsequence >> 32) & M32]

    def curand4(self):
        out = philox_scalar(tuple(self.ctr), self.key)
        value = (self.ctr[0] | self.ctr[1] << 32) + 1  # Philox_State_Incr
        self.ctr[0], self.ctr[1] = value & M32, (value >> 32) & M32
        return out


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def uniform_float(word):
    return f32(f32(float(word)) * 2.0 ** -32 + 2.0 ** -33)  # curand_uniform


def grid_stride_rand(numel, seed, offset, mp_count, threads_per_mp):
    """torch.rand(numel) in float32 as the CUDA kernel runs it, thread by thread."""
    block, unroll = 256, 4
    grid = min(mp_count * (threads_per_mp // block), (numel + block - 1) // block)
    stride = block * grid
    out = [None] * numel
    rounded = ((numel - 1) // (stride * unroll) + 1) * stride * unroll
    for idx in range(stride):
        state = CurandState(seed, idx, offset)
        linear = idx
        while linear < rounded:
            words = state.curand4()
            for ii in range(unroll):
                li = linear + stride * ii
                if li < numel:
                    value = uniform_float(words[ii])
                    out[li] = 0.0 if value == 1.0 else value
            linear += stride * unroll
    counter_offset = ((numel - 1) // (stride * unroll) + 1) * 4
    return out, counter_offset


# -- the tests --------------------------------------------------------------------------------
def test_philox_matches_random123_known_answers():
    import numpy as np

    philox = _philox_module()
    cases = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
             ((M32,) * 4, (M32, M32), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
             ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
              (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]
    for ctr, key, expected in cases:
        got = philox.philox(*(np.array([c], dtype=np.uint32) for c in ctr), *key)
        assert tuple(int(w[0]) for w in got) == expected
        assert philox_scalar(ctr, key) == expected


SMALL_GRID = {"TORCH_ARCH_MP_COUNT": "2", "TORCH_ARCH_MAXTHREADS_PER_MP": "512"}


@pytest.mark.parametrize("release", ("2.9.1.post1", "2.11.0.post2"))
def test_cuda_seed_gives_the_grid_stride_stream(release):
    # A grid of 2 x (512 / 256) blocks: 5000 draws walk the grid-stride loop twice with all
    # four words of each curand4 used; the explicit variables win over TORCH_RNG_ALIGN.
    out = last_json(run_sim("""
        import json
        torch.cuda.manual_seed(1234)
        a = torch.rand(5000, device="cuda").cpu().tolist()
        b = torch.rand(7, device="cuda").cpu().tolist()
        state = torch.cuda.get_rng_state()
        print(json.dumps({"a": a, "b": b, "offset": int.from_bytes(bytes(state[8:16].tolist()), "little")}))
    """, TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip(release), TORCH_RNG_ALIGN="H200", **SMALL_GRID))
    ref_a, off_a = grid_stride_rand(5000, 1234, 0, 2, 512)
    ref_b, off_b = grid_stride_rand(7, 1234, off_a, 2, 512)
    assert off_a == 8  # two trips of the loop: the offset moves 2 x 4
    assert out["a"] == ref_a
    assert out["b"] == ref_b
    assert out["offset"] == off_a + off_b


def test_aligned_stream_depends_on_the_named_gpu():
    # 300000 draws exceed one pass of an H200-sized grid (132 x 8 blocks of 256 threads),
    # not of a B200-sized one (192 x 8): the draws past 270336 differ, the first ones agree.
    code = """
        import json
        torch.cuda.manual_seed(0)
        x = torch.rand(300000, device="cuda").cpu()
        print(json.dumps({"head": x[:4].tolist(), "tail": x[270336:270340].tolist()}))
    """
    h200 = last_json(run_sim(code, TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip("2.11.0.post2"),
                             TORCH_RNG_ALIGN="H200"))
    b200 = last_json(run_sim(code, TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip("2.11.0.post2"),
                             TORCH_RNG_ALIGN="b200"))
    assert h200["head"] == b200["head"]
    assert h200["tail"] != b200["tail"]
    # element 270336 on the H200 grid: thread 0's first curand4, second word
    assert h200["tail"][0] == uniform_float(CurandState(0, 0, 0).curand4()[1])


@pytest.mark.skipif(not NVIDIA.exists(), reason="no NVIDIA recording (tests/data/record_nvidia_rng.py)")
def test_aligned_stream_equals_an_nvidia_gpu():
    rec = json.loads(NVIDIA.read_text())
    assert "H100" in rec["meta"]["device"] or "H200" in rec["meta"]["device"]  # 132 SMs
    out = last_json(run_sim("""
        import json
        res = {}
        for seed in (0, 1234):
            torch.cuda.manual_seed(seed)
            res["rand@%d" % seed] = torch.rand(16, device="cuda").cpu().tolist()
            torch.cuda.manual_seed(seed)
            res["rand_f64@%d" % seed] = torch.rand(16, device="cuda", dtype=torch.float64).cpu().tolist()
            torch.cuda.manual_seed(seed)
            res["uniform_@%d" % seed] = torch.empty(16, device="cuda").uniform_(-1.0, 1.0).cpu().tolist()
            torch.cuda.manual_seed(seed)
            res["rand_large@%d" % seed] = torch.rand(1 << 20, device="cuda")[:16].cpu().tolist()
            torch.cuda.manual_seed(seed)
            res["sequence@%d" % seed] = [torch.rand(4, device="cuda").cpu().tolist() for _ in range(3)]
            torch.cuda.manual_seed(seed)
            res["randn@%d" % seed] = torch.randn(16, device="cuda").cpu().tolist()
            torch.cuda.manual_seed(seed)
            res["normal_@%d" % seed] = torch.empty(16, device="cuda").normal_(2.0, 3.0).cpu().tolist()
        print(json.dumps(res))
    """, TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip("2.11.0.post2"), TORCH_RNG_ALIGN="H200"))
    # Uniform draws: bit for bit. Normal draws go through CUDA's __sincosf on arguments up to
    # 2*pi, outside the range its documented error bound covers: measured on an H100 they
    # differ by at most about 1e-6 (not asserted; docs/cuda_namespace.md).
    for key, got in out.items():
        if not key.startswith(("randn", "normal_")):
            assert got == rec["draws"][key], key


def test_release_without_alignment_warns_once_and_keeps_its_stream():
    proc = run_sim("""
        import json
        torch.cuda.manual_seed(0)
        x = torch.rand(4, device="cuda").cpu().tolist()
        print(json.dumps({"x": x, "has": hasattr(torch.musa, "align_rng_to_nv_gpu")}))
    """, TORCHADA_SIM_TORCH_MUSA_VERSION="2.7.1", TORCH_RNG_ALIGN="H200")
    out = last_json(proc)
    assert out["has"] is False
    ref, _ = grid_stride_rand(4, 0, 0, 132, 2048)
    assert out["x"] != ref
    notes = [l for l in proc.stderr.splitlines() if "TORCH_RNG_ALIGN" in l]
    assert len(notes) == 1, proc.stderr
    assert "torch_musa 2.7.1 has no RNG alignment" in notes[0]
    assert "torch_musa 2.9.1.post1 added it" in notes[0]
    assert "upgrade torch_musa" in notes[0]


def test_aligned_release_stays_quiet_and_unknown_gpu_is_named():
    proc = run_sim("""
        torch.cuda.manual_seed(0)
        print(torch.rand(2, device="cuda").sum().item() > 0)
    """, TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip("2.11.0.post2"), TORCH_RNG_ALIGN="H200")
    assert "TORCH_RNG_ALIGN" not in proc.stderr
    # torch_musa raises at import for a name it does not know: torchada reports the failed
    # import with torch_musa's message (the known names) and the program goes on.
    proc = run_sim("print('alive', torch.cuda.is_available())",
                   TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip("2.11.0.post2"), TORCH_RNG_ALIGN="RTX9999")
    assert "alive" in proc.stdout
    assert "Unknown NV GPU 'RTX9999'" in proc.stderr and "H200" in proc.stderr


def test_aligned_stream_inside_a_compiled_function():
    # torch.compile(fullgraph=True) with the aot_eager backend runs aten's rand / randn, so
    # a compiled function draws the aligned stream as eager code does (Inductor generates
    # its own Philox code instead: not covered by the alignment).
    out = last_json(run_sim("""
        import json

        def draw(x):
            return x + torch.rand(x.shape, device=x.device), torch.randn(3, device=x.device)

        compiled = torch.compile(draw, backend="aot_eager", fullgraph=True)
        x = torch.zeros(5000, device="cuda")
        torch.cuda.manual_seed(1234)
        a, na = compiled(x)
        torch.cuda.manual_seed(1234)
        b, nb = draw(x)
        print(json.dumps({"a": a.cpu().tolist(), "b": b.cpu().tolist(),
                          "na": na.cpu().tolist(), "nb": nb.cpu().tolist()}))
    """, TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip("2.11.0.post2"), TORCH_RNG_ALIGN="H200", **SMALL_GRID))
    ref, _ = grid_stride_rand(5000, 1234, 0, 2, 512)
    assert out["a"] == ref
    assert out["a"] == out["b"] and out["na"] == out["nb"]
