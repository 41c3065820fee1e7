"""Legacy tensor types: torch.cuda.<T>Tensor names and classes in .type(), Module.type,
set_default_tensor_type, the legacy constructors, isinstance."""
import json

import torch

torch.manual_seed(0)
x = torch.randn(3, 4).cuda()
h = x.type("torch.cuda.HalfTensor")
d = x.type(torch.cuda.DoubleTensor)
l = (x * 10).type("torch.cuda.LongTensor")
b = (x > 0).type(torch.cuda.ByteTensor)
bf = x.type("torch.cuda.BFloat16Tensor")
model = torch.nn.Linear(4, 2)
model.type(torch.cuda.DoubleTensor)
y = model(d)
made = torch.cuda.FloatTensor([1.5, -2.25])
zeros = torch.cuda.LongTensor(2, 3).zero_()
torch.set_default_tensor_type("torch.cuda.DoubleTensor")
z = torch.ones(2, 2) / 3
torch.set_default_tensor_type(torch.FloatTensor)
back = torch.ones(2) / 3
print(json.dumps({
    "h": h.float().tolist(), "d": d.tolist(), "l": l.tolist(), "b": b.tolist(),
    "bf": bf.float().tolist(), "y": y.tolist(), "made": made.tolist(), "zeros": zeros.tolist(),
    "z": z.tolist(), "z_dtype": str(z.dtype), "back": back.tolist(), "back_dtype": str(back.dtype),
    "facts": {"type_names": [h.type(), d.type(), y.type()] == [
                  "torch.cuda.HalfTensor", "torch.cuda.DoubleTensor", "torch.cuda.DoubleTensor"],
              "isinstance": isinstance(h, torch.cuda.HalfTensor)
              and not isinstance(h, torch.cuda.FloatTensor) and isinstance(l, torch.cuda.LongTensor),
              "on_device": all(t.is_cuda and t.device.type != "cpu" for t in (h, d, l, b, y, made, z)),
              "default_undone": back.device.type == "cpu"}}))
