"""RNG alignment with NVIDIA GPUs on the simulated device (torch_musa 2.11.0.post2).

torch_musa/core/random.py at e205050: align_rng_to_nv_gpu() turns TORCH_RNG_ALIGN=<GPU>
into TORCH_ARCH_MP_COUNT / TORCH_ARCH_MAXTHREADS_PER_MP, which its C++ RNG grid config
reads; torch_musa's own test (tests: "Test RNG grid sizing alignment with NVIDIA GPUs")
sets TORCH_RNG_ALIGN before `import torch_musa`. With both variables set when torch_musa is
imported, the simulator's uniform_ / normal_ kernels for musa give CUDA's Philox stream for
that grid (torch_musa._sim.philox); without them its stream stays its own (a CPU mt19937
seeded from the generator's seed and offset, musa_sim.cpp). When the real C++ reads the
variables (once or per launch) is unknown: the simulator reads them once, at import.
"""
import os

import torch

_LIB = []


def grid_from_env():
    """(mp_count, max_threads_per_mp) from TORCH_ARCH_MP_COUNT / _MAXTHREADS_PER_MP, or None."""
    mp, threads = os.environ.get("TORCH_ARCH_MP_COUNT"), os.environ.get("TORCH_ARCH_MAXTHREADS_PER_MP")
    if not (mp and threads):
        return None
    return int(mp), int(threads)


def _state(gen):
    raw = bytes(gen.get_state().tolist())
    return int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:16], "little")


def _advance(gen, seed, offset):
    raw = seed.to_bytes(8, "little") + offset.to_bytes(8, "little")
    gen.set_state(torch.tensor(list(raw), dtype=torch.uint8))


def _fill(self, generator, draw, *params):
    import numpy as np

    mp, threads = _GRID[0]
    index = self.device.index if self.device.index is not None else torch.musa.current_device()
    gen = generator if generator is not None else torch.musa.default_generators[index]
    seed, offset = _state(gen)
    numel = self.numel()
    if numel == 0:
        return self
    np_dtype = {torch.float64: np.float64, torch.float32: np.float32,
                torch.float16: np.float16}.get(self.dtype, np.float32)
    values, counter_offset = draw(numel, seed, offset, mp, threads, np_dtype, *params)
    _advance(gen, seed, offset + counter_offset)
    host = torch.from_numpy(np.ascontiguousarray(values)).to(self.dtype)
    # TensorIterator walks a dense tensor in memory order: write the draws in that order.
    order = sorted(range(self.dim()), key=lambda d: -self.stride(d))
    view = self.permute(order) if self.dim() else self
    view.copy_(host.reshape(view.shape))
    return self


def install(grid):
    from torch_musa._sim import philox

    _GRID[0] = grid
    lib = torch.library.Library("aten", "IMPL")

    def uniform_(self, from_=0.0, to=1.0, *, generator=None):
        return _fill(self, generator, philox.uniform, float(from_), float(to))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        return _fill(self, generator, philox.normal, float(mean), float(std))

    lib.impl("uniform_", uniform_, "PrivateUse1")
    lib.impl("normal_", normal_, "PrivateUse1")
    _LIB.append(lib)


_GRID = [None]
