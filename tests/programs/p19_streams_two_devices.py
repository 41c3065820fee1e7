"""Side streams on device 1, record_stream, and an event shared between streams."""
import json

import torch

s1 = torch.cuda.Stream(device="cuda:1")
with torch.cuda.stream(s1):
    current = torch.cuda.current_device()
    x = torch.arange(8.0, device="cuda:1")
    y = (x * 3).sum()
x.record_stream(s1)
done = torch.cuda.Event()
done.record(s1)
torch.cuda.current_stream(1).wait_event(done)
z = (x + 1).cumsum(0)
torch.cuda.synchronize()
print(json.dumps({"y": y.item(), "z": z.tolist(),
                  "facts": {"stream_makes_device_current": current == 1,
                            "back_on_device_0": torch.cuda.current_device() == 0,
                            "x_on_1": x.device.index == 1, "event_on_1": done.device.index == 1,
                            "event_done": done.query()}}))
