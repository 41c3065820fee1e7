"""GPU RNG: dropout leaves the CPU generator alone; a CUDA checkpoint's RNG state restores."""
import json

import torch
import torch.nn.functional as F

torch.manual_seed(0)
cpu_before = torch.get_rng_state()
drop = F.dropout(torch.ones(4000, device="cuda"), 0.3, training=True)
cpu_untouched = torch.equal(cpu_before, torch.get_rng_state())
state = torch.cuda.get_rng_state()
a = torch.rand(4, device="cuda")
torch.cuda.set_rng_state(state)
b = torch.rand(4, device="cuda")
# what a CUDA checkpoint stores: 8 bytes seed, 8 bytes Philox offset (CUDAGeneratorImpl)
saved = torch.cat([torch.tensor([42]).view(torch.uint8), torch.tensor([0]).view(torch.uint8)])
torch.cuda.set_rng_state(saved)
x = torch.rand(3, device="cuda")
torch.cuda.manual_seed(42)
y = torch.rand(3, device="cuda")
try:
    torch.rand(2, device="cuda", generator=torch.Generator())
    cpu_generator_refused = False
except RuntimeError:
    cpu_generator_refused = True
kept = (drop != 0).float().mean().item()
print(json.dumps({"scale": drop.max().item(),
                  "facts": {"cpu_untouched": cpu_untouched, "restore": torch.equal(a, b),
                            "state_bytes": state.numel() == 16,
                            "checkpoint_state": torch.equal(x, y),
                            "cpu_generator_refused": cpu_generator_refused,
                            "kept_fraction": 0.66 < kept < 0.74}}))
