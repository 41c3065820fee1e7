"""A tiny GPT-2 (tied input and output embeddings) trained for three steps with the optimizer
built before the move to the device, as training scripts do. argv[1]: the device.
Prints one JSON line: {"losses": [...], "tied": bool, "device": str}."""
import json
import sys

import torch
from transformers import GPT2Config, GPT2LMHeadModel

device = sys.argv[1]
torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=50, n_positions=16,
                    resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)   # no RNG in the step
model = GPT2LMHeadModel(config)
# SGD with momentum: the same update arithmetic on both devices. (With AdamW the second loss
# differed from the CPU's by one float32 ulp on the simulated device; not investigated.)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model.to(device)
ids = torch.tensor([[1, 5, 7, 9, 3, 2, 11, 4]], device=device)
losses = []
for _ in range(3):
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    losses.append(out.loss.item())
print(json.dumps({"losses": losses, "tied": model.lm_head.weight is model.transformer.wte.weight,
                  "device": str(model.device)}))
