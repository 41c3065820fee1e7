"""A small conv net in eval mode."""
import json

import torch
import torch.nn as nn

torch.manual_seed(3)
net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2)).eval()
x = torch.randn(2, 3, 8, 8)
net = net.cuda()
with torch.no_grad():
    y = net(x.cuda())
    yh = net.half()(x.cuda().half()).float()
print(json.dumps({"y": y.flatten().tolist(), "yh": yh.flatten().tolist(),
                  "facts": {"gpu": y.is_cuda}}))
