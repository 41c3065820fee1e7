"""Pickled devices and tensors round-trip."""
import io
import json
import pickle

import torch

dev = torch.device("cuda:1")
back = pickle.loads(pickle.dumps(dev))
t = torch.arange(5.0, device="cuda")
buf = io.BytesIO()
torch.save(t, buf)
buf.seek(0)
t2 = torch.load(buf)
t3 = pickle.loads(pickle.dumps(t))
print(json.dumps({"t2": t2.tolist(), "t3": t3.tolist(),
                  "facts": {"same": back == dev, "type": type(back) is torch.device,
                            "hash": hash(back) == hash(dev), "t2_gpu": t2.is_cuda,
                            "isinstance": isinstance(back, torch.device)}}))
