"""RNG reproducibility on the GPU."""
import json

import torch

torch.cuda.manual_seed(123)
a = torch.rand(5, device="cuda")
torch.cuda.manual_seed(123)
b = torch.rand(5, device="cuda")
state = torch.cuda.get_rng_state()
c = torch.randn(5, device="cuda")
torch.cuda.set_rng_state(state)
d = torch.randn(5, device="cuda")
g = torch.Generator(device="cuda")
g.manual_seed(7)
e = torch.rand(3, generator=g, device="cuda")
g.manual_seed(7)
f = torch.rand(3, generator=g, device="cuda")
torch.manual_seed(5)
cpu_vals = torch.randn(4).tolist()
print(json.dumps({"cpu": cpu_vals,
                  "facts": {"seed_repro": torch.equal(a, b), "state_repro": torch.equal(c, d),
                            "gen_repro": torch.equal(e, f), "gen_dev": g.device.index == 0 or g.device.index is None,
                            "range": bool((a >= 0).all() and (a < 1).all())}}))
