"""A Lightning training script as users write it (accelerator, precision and the package name,
``lightning`` or the standalone ``pytorch_lightning``, from argv),
and the same training written by hand with autocast and GradScaler, for comparison.
Prints one JSON line: {"lightning": weights, "manual": weights, "stats": bool}."""
import json
import sys

import importlib

import torch

accelerator, precision = sys.argv[1], sys.argv[2]
L = importlib.import_module(sys.argv[3] if len(sys.argv) > 3 else "lightning")


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(4, 1)

    def training_step(self, batch, index):
        x, y = batch
        return torch.nn.functional.mse_loss(self.lin(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


gen = torch.Generator().manual_seed(1)
x = torch.randn(32, 4, generator=gen)
y = x.sum(1, keepdim=True)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
model = Model()
trainer = L.Trainer(accelerator=accelerator, devices=1, precision=precision, max_epochs=2,
                    logger=False, enable_checkpointing=False, enable_progress_bar=False,
                    enable_model_summary=False)
trainer.fit(model, loader)
out = {"lightning": model.lin.weight.detach().cpu().tolist(),
       "bias": model.lin.bias.detach().cpu().tolist()}
if accelerator != "cpu":
    out["stats"] = "allocated_bytes.all.current" in trainer.accelerator.get_device_stats("cuda:0")

# The same training by hand.
reference = Model().to("cuda" if accelerator != "cpu" else "cpu")
opt = torch.optim.SGD(reference.parameters(), lr=0.05)
mixed = precision == "16-mixed"
scaler = torch.amp.GradScaler("cuda", enabled=mixed)
for _ in range(2):
    for xb, yb in loader:
        xb, yb = xb.to(reference.device), yb.to(reference.device)
        with torch.autocast("cuda", dtype=torch.float16, enabled=mixed):
            loss = torch.nn.functional.mse_loss(reference.lin(xb), yb)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
out["manual"] = reference.lin.weight.detach().cpu().tolist()
out["manual_bias"] = reference.lin.bias.detach().cpu().tolist()
print(json.dumps(out))
