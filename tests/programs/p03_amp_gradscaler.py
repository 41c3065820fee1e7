"""AMP training loop with autocast and GradScaler."""
import json

import torch
import torch.nn as nn

torch.manual_seed(1)
X = torch.randn(32, 16)
Y = torch.randn(32, 4)
model = nn.Linear(16, 4).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler()
X, Y = X.cuda(), Y.cuda()
losses = []
for _ in range(5):
    opt.zero_grad()
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        pred = model(X)
        half = pred.dtype == torch.float16
        loss = ((pred.float() - Y) ** 2).mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    losses.append(loss.item())
with torch.cuda.amp.autocast():
    z = model(X)
print(json.dumps({"losses": losses, "facts": {"autocast_half": half, "decreased": losses[-1] < losses[0],
                                                "amp_ctx_half": z.dtype == torch.float16,
                                                "scale_positive": scaler.get_scale() > 0}},))
