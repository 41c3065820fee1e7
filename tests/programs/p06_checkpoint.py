"""Checkpoint save and load with every map_location form."""
import io
import json

import torch
import torch.nn as nn

torch.manual_seed(2)
model = nn.Linear(6, 3).cuda()
buf = io.BytesIO()
torch.save({"model": model.state_dict(), "step": 7}, buf)
raw = buf.getvalue()
sums = {}
for label, loc in [("none", None), ("str", "cuda"), ("dev", torch.device("cuda:0")),
                   ("dict", {"cuda:0": "cuda:1"}), ("callable", lambda s, l: s.cuda(0)),
                   ("cpu", "cpu")]:
    kwargs = {} if loc is None else {"map_location": loc}
    ckpt = torch.load(io.BytesIO(raw), **kwargs)
    w = ckpt["model"]["weight"]
    sums[label] = [w.sum().item(), w.is_cuda]
fresh = nn.Linear(6, 3).cuda()
fresh.load_state_dict(torch.load(io.BytesIO(raw), map_location="cuda")["model"])
x = torch.ones(2, 6, device="cuda")
print(json.dumps({"sums": {k: v[0] for k, v in sums.items()},
                  "out": fresh(x).sum().item(),
                  "facts": {"gpu_" + k: v[1] for k, v in sums.items() if k != "cpu"}}))
