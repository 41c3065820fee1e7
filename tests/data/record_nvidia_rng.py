"""Records what torch's own CUDA random stream gives for a seed, on an NVIDIA GPU.

    python tests/data/record_nvidia_rng.py > tests/data/nvidia_rng.json

The output is the reference a CUDA program's seeded stream is compared with (torch_musa's
RNG alignment with NVIDIA GPUs, docs/simulator.md): per seed and draw, the first values.
Run it on a machine with an NVIDIA GPU and torch's CUDA build; torchada plays no part.
"""
import json
import sys

import torch

SEEDS = (0, 1234)
N = 16


def draws():
    return {
        "rand": lambda: torch.rand(N, device="cuda"),
        "randn": lambda: torch.randn(N, device="cuda"),
        "randint": lambda: torch.randint(0, 1000, (N,), device="cuda"),
        "rand_f64": lambda: torch.rand(N, device="cuda", dtype=torch.float64),
        "normal_": lambda: torch.empty(N, device="cuda").normal_(2.0, 3.0),
        "uniform_": lambda: torch.empty(N, device="cuda").uniform_(-1.0, 1.0),
        "bernoulli": lambda: torch.bernoulli(torch.full((N,), 0.5, device="cuda")),
        "randperm": lambda: torch.randperm(N, device="cuda"),
        "dropout_mask": lambda: torch.nn.functional.dropout(torch.ones(N, device="cuda"), 0.5),
        "rand_large": lambda: torch.rand(1 << 20, device="cuda")[:N],
    }


def main():
    out = {"meta": {"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                    "cuda": torch.version.cuda},
           "draws": {}}
    for seed in SEEDS:
        for name, draw in draws().items():
            torch.cuda.manual_seed(seed)
            out["draws"]["%s@%d" % (name, seed)] = draw().cpu().tolist()
        # the sequence: one seed, then three draws in a row (offsets advance)
        torch.cuda.manual_seed(seed)
        out["draws"]["sequence@%d" % seed] = [torch.rand(4, device="cuda").cpu().tolist()
                                             for _ in range(3)]
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
