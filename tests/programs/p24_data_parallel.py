"""nn.DataParallel training and torch.cuda.comm, as CUDA programs write them (float64)."""
import json

import torch
import torch.cuda.comm as comm
import torch.nn as nn


def train(device_ids):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2)).double().cuda()
    net = nn.DataParallel(model, device_ids=device_ids)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    X = torch.randn(32, 6, dtype=torch.float64)
    Y = torch.randn(32, 2, dtype=torch.float64)
    losses = []
    for step in range(6):
        opt.zero_grad()
        inputs = X.cuda() if step % 2 else X  # CPU inputs are scattered too
        loss = nn.functional.mse_loss(net(inputs), Y.cuda())
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().cpu().tolist() for p in model.parameters()]


n = torch.cuda.device_count()
one_losses, one_params = train([0])
all_losses, all_params = train(list(range(n)))
x = torch.arange(12, dtype=torch.float64).reshape(4, 3).cuda()
parts = comm.scatter(x, devices=list(range(n)))
together = comm.gather(parts, destination=0)
copies = comm.broadcast(x, devices=list(range(n)))
summed = comm.reduce_add(copies, destination=0)
print(json.dumps({"one_losses": one_losses, "one_params": one_params,
                  "all_losses": all_losses, "all_params": all_params,
                  "gather": together.tolist(), "reduce_add": summed.tolist(),
                  "facts": {"two_devices": n >= 2, "split": len(parts) == n,
                            "gathered_on_cuda": together.is_cuda}}))
