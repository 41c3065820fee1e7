"""Inference on a side stream with events and timing."""
import json

import torch

x = torch.arange(1024, dtype=torch.float32).reshape(32, 32).cuda()
w = torch.eye(32, device="cuda") * 0.5
side = torch.cuda.Stream()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
side.wait_stream(torch.cuda.current_stream())
start.record()
with torch.cuda.stream(side):
    y = x @ w
    y = y.relu()
end.record(side)
torch.cuda.current_stream().wait_stream(side)
end.synchronize()
torch.cuda.synchronize()
ms = start.elapsed_time(end)
print(json.dumps({"sum": y.sum().item(),
                  "facts": {"time_ok": ms >= 0, "event_done": end.query(),
                            "default_stream": torch.cuda.current_stream() == torch.cuda.default_stream()}}))
