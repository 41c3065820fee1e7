"""A small, ordinary CUDA training script: nothing in it knows about MUSA or torchada.

    torchada run --simulate --example train_cuda      # on the simulated MUSA device
    python train_cuda.py                               # on an NVIDIA GPU
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc1 = nn.Linear(8 * 7 * 7, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        x = F.dropout(F.relu(self.fc1(x.flatten(1))), 0.1, self.training)
        return self.fc2(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()

    assert torch.cuda.is_available(), "this example needs a CUDA device"
    device = "cuda"
    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    print(f"device: {torch.cuda.get_device_name(0)} (count {torch.cuda.device_count()})")

    # synthetic "digits": the label is which quadrant holds the bright blob
    images = torch.rand(512, 1, 14, 14) * 0.1
    labels = torch.randint(0, 4, (512,))
    for i, q in enumerate(labels.tolist()):
        r, c = divmod(q, 2)
        images[i, 0, r * 7:(r + 1) * 7, c * 7:(c + 1) * 7] += 1.0

    model = Net().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    scaler = torch.amp.GradScaler("cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for step in range(args.steps):
        idx = torch.randint(0, images.shape[0], (args.batch,))
        x = images[idx].to(device, non_blocking=True)
        y = labels[idx].cuda()
        with torch.cuda.amp.autocast():
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if step % 5 == 0 or step == args.steps - 1:
            print(f"step {step:3d}  loss {loss.item():.4f}")
    end.record()
    torch.cuda.synchronize()

    model.eval()
    with torch.no_grad():
        acc = (model(images.cuda()).argmax(1).cpu() == labels).float().mean().item()
    print(f"accuracy {acc:.3f}  time {start.elapsed_time(end):.0f} ms  "
          f"peak memory {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
