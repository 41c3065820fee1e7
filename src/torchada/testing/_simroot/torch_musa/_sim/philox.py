"""CUDA's random stream for torch's uniform and normal kernels, computed on the host.

What torch_musa 2.11.0.post2's RNG alignment promises (core/random.py at e205050:
align_rng_to_nv_gpu sets TORCH_ARCH_MP_COUNT / TORCH_ARCH_MAXTHREADS_PER_MP "so the C++ RNG
grid config reads the correct values"): the same Philox4x32-10 counters as an NVIDIA GPU
with that many multiprocessors, hence the same numbers for a seed. The arithmetic follows
PyTorch's aten/src/ATen/native/cuda/DistributionTemplates.h (calc_execution_policy,
distribution_elementwise_grid_stride_kernel, uniform_and_transform, normal_and_transform,
the uniform and normal transforms) and cuRAND's curand_philox4x32_x.h / curand_uniform.h /
curand_normal.h (curand_init, Philox4x32-10, curand_uniform4, curand_uniform2_double,
curand_normal4). torch_musa's C++ grid config itself was not read (unknown beyond the
docstring). Normal draws use sin/cos in float64 where CUDA uses __sincosf: they agree to
__sincosf's error bound, not bit for bit.
"""
import numpy as np

BLOCK = 256            # block_size_bound
ENGINE_CALLS = 4       # curand4_engine_calls
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
_MASK = np.uint64(0xFFFFFFFF)
_INV32 = np.float32(2.0 ** -32)                         # CURAND_2POW32_INV
_INV32_2PI = np.float32(np.float32(2.0 ** -32) * np.float32(6.2831855))  # CURAND_2POW32_INV_2PI
_INV53 = 2.0 ** -53                                     # CURAND_2POW53_INV_DOUBLE


def philox(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 of counters (uint32 arrays) under key (k0, k1)."""
    k0, k1 = np.uint32(k0), np.uint32(k1)
    with np.errstate(over="ignore"):
        for r in range(10):
            p0 = c0.astype(np.uint64) * _M0
            p1 = c2.astype(np.uint64) * _M1
            hi0, lo0 = (p0 >> np.uint64(32)).astype(np.uint32), (p0 & _MASK).astype(np.uint32)
            hi1, lo1 = (p1 >> np.uint64(32)).astype(np.uint32), (p1 & _MASK).astype(np.uint32)
            c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
            if r < 9:
                k0, k1 = k0 + _W0, k1 + _W1
    return c0, c1, c2, c3


def policy(numel, unroll, mp_count, max_threads_per_mp):
    """(counter_offset, grid) of calc_execution_policy."""
    grid = (numel + BLOCK - 1) // BLOCK
    grid = min(mp_count * (max_threads_per_mp // BLOCK), grid)
    counter_offset = ((numel - 1) // (BLOCK * grid * unroll) + 1) * ENGINE_CALLS
    return counter_offset, grid


def _words(numel, unroll, seed, offset, grid):
    """For element e: the four 32-bit outputs its thread's curand4 call gave, and which of
    them (ii) the grid-stride loop hands element e."""
    threads = BLOCK * grid
    e = np.arange(numel, dtype=np.int64)
    k, r = e // (threads * unroll), e % (threads * unroll)
    ii, thread = r // threads, r % threads
    # curand_init(seed, subsequence=thread, offset): counter = (offset / 4 + k, thread)
    # (offset is a multiple of 4 in torch, so no partial output); 64-bit halves.
    lo64 = (np.uint64(offset // 4) + k.astype(np.uint64))
    c0, c1 = (lo64 & _MASK).astype(np.uint32), (lo64 >> np.uint64(32)).astype(np.uint32)
    t = thread.astype(np.uint64)
    c2, c3 = (t & _MASK).astype(np.uint32), (t >> np.uint64(32)).astype(np.uint32)
    out = philox(c0, c1, c2, c3, seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF)
    return np.stack(out, axis=1), ii


def _launch(numel, unroll, seed, offset, mp_count, max_threads_per_mp):
    """(counter_offset, words, element slot, row index) of one distribution kernel's launch:
    the grid torch's policy picks, and each element's Philox words."""
    counter_offset, grid = policy(numel, unroll, mp_count, max_threads_per_mp)
    words, ii = _words(numel, unroll, seed, offset, grid)
    return counter_offset, words, ii, np.arange(numel)


def uniform(numel, seed, offset, mp_count, max_threads_per_mp, dtype, low, high):
    """(values as a numpy array of ``dtype``, counter_offset) for uniform_(low, high):
    float64 draws curand_uniform2_double (unroll 2); other types curand_uniform4 (unroll 4)
    in float, cast to the type."""
    double = dtype == np.float64
    counter_offset, words, ii, rows = _launch(numel, 2 if double else 4, seed, offset,
                                              mp_count, max_threads_per_mp)
    if double:
        x = words[rows, 2 * ii].astype(np.uint64)
        y = words[rows, 2 * ii + 1].astype(np.uint64)
        z = x ^ (y << np.uint64(21))
        rand = z.astype(np.float64) * _INV53 + _INV53 / 2.0
        value = rand * (high - low) + low
    else:
        w = words[rows, ii].astype(np.float32)
        rand = w * _INV32 + _INV32 / np.float32(2.0)   # exact product: one rounding
        # rand * range + from in float: fused or not, the float64 result rounds once
        value = (rand.astype(np.float64) * np.float64(np.float32(high - low))
                 + np.float64(np.float32(low))).astype(np.float32).astype(dtype)
    # reverse the bounds of curand's (0, 1] to [0, 1), compared in the output type
    top, bottom = np.array(high).astype(dtype), np.array(low).astype(dtype)
    return np.where(value == top, bottom, value).astype(dtype), counter_offset


def normal(numel, seed, offset, mp_count, max_threads_per_mp, dtype, mean, std):
    """(values, counter_offset) for normal_(mean, std): float64 draws curand_normal2_double
    (unroll 2, sincospi), other types curand_normal4 (unroll 4, __sincosf) in float."""
    double = dtype == np.float64
    counter_offset, words, ii, rows = _launch(numel, 2 if double else 4, seed, offset,
                                              mp_count, max_threads_per_mp)
    if double:
        w = words.astype(np.uint64)
        zx = w[:, 0] ^ (w[:, 1] << np.uint64(21))
        zy = w[:, 2] ^ (w[:, 3] << np.uint64(21))
        u = zx.astype(np.float64) * _INV53 + _INV53 / 2.0
        v = zy.astype(np.float64) * (_INV53 * 2.0) + _INV53
        s = np.sqrt(-2.0 * np.log(u))
        rand = s * np.where(ii == 0, np.sin(np.pi * v), np.cos(np.pi * v))
        return (rand * std + mean).astype(dtype), counter_offset
    pair = ii // 2  # (x, y) feed results 0 and 1, (z, w) results 2 and 3
    x = words[rows, 2 * pair].astype(np.float32)
    y = words[rows, 2 * pair + 1].astype(np.float32)
    u = x * _INV32 + _INV32 / np.float32(2.0)
    v = (y.astype(np.float64) * np.float64(_INV32_2PI)
         + np.float64(_INV32_2PI / np.float32(2.0))).astype(np.float32)
    s = np.sqrt(np.float32(-2.0) * np.log(u))
    trig = np.where(ii % 2 == 0, np.sin(v.astype(np.float64)), np.cos(v.astype(np.float64)))
    rand = (s.astype(np.float64) * trig).astype(np.float32)
    value = (rand.astype(np.float64) * np.float64(np.float32(std))
             + np.float64(np.float32(mean))).astype(np.float32)
    return value.astype(dtype), counter_offset
