"""Tensors shared with a worker process through torch.multiprocessing (CUDA IPC): a queue
of cuda tensors whose writes the parent sees, the reduce_tensor / rebuild_cuda_tensor
hand-off that weight-sync code does itself, and a tensor the worker makes and sends back."""
import json

import torch
import torch.multiprocessing as mp
from torch.multiprocessing.reductions import reduce_tensor


def worker(inbox, outbox):
    x, column, weights = inbox.get()
    x[0][:] = 4.0  # lands in the parent's memory
    rebuild, args = inbox.get()
    args = list(args)
    args[6] = torch.cuda.current_device()  # the receiver's own device index
    doubled = rebuild(*args)
    outbox.put({"dot": float((weights * doubled).sum()), "col_in_worker": column.tolist(),
                "worker_cuda": doubled.is_cuda and weights.is_cuda})
    made = torch.full((3,), 7.0, device="cuda")
    outbox.put(made)
    inbox.get()  # keep `made` alive until the parent has its copy


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    x = torch.zeros(5, 5, device="cuda")
    x[:, 1] = 1.0
    weights = torch.arange(6.0, device="cuda")
    doubled = weights * 2
    proc = ctx.Process(target=worker, args=(inbox, outbox))
    proc.start()
    inbox.put([x, x[:, 1], weights])
    inbox.put(reduce_tensor(doubled))
    report = outbox.get(timeout=300)
    back = outbox.get(timeout=300)
    back_copy = back.clone()
    inbox.put("done")
    proc.join(300)
    torch.cuda.ipc_collect()
    print(json.dumps({
        "x": x.tolist(), "dot": report["dot"], "col_in_worker": report["col_in_worker"],
        "back": back_copy.tolist(),
        "facts": {"worker_cuda": report["worker_cuda"], "back_cuda": back.is_cuda,
                  "exit": proc.exitcode == 0, "x_row0": bool(x[0].eq(4).all())}}))
