"""A plain training loop: model.cuda(), optimizer, loss.backward()."""
import json

import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(64, 8)
Y = X @ torch.randn(8, 1) + 0.1
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
model.cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
X, Y = X.cuda(), Y.to("cuda")
losses = []
for step in range(20):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), Y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
print(json.dumps({"losses": losses,
                  "facts": {"param_on_gpu": next(model.parameters()).is_cuda,
                            "decreased": losses[-1] < losses[0]}}))
