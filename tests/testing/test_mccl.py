"""The "mccl" backend (gloo underneath): one process, two processes with mp.spawn, and DDP."""
from tests._fresh import free_port

ONE = r'''
import os, torch, torch_musa, torch.distributed as dist
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="%(port)d")
assert "mccl" in dist.Backend.backend_list
assert dist.Backend.default_device_backend_map.get("musa") == "mccl"
dist.init_process_group("mccl", rank=0, world_size=1)
t = torch.arange(4., device="musa"); dist.all_reduce(t)
assert t.device.type == "musa" and t.cpu().tolist() == [0., 1., 2., 3.]
assert dist.get_backend() == "mccl", dist.get_backend()
dist.barrier(); dist.destroy_process_group(); print("OK")
'''

TWO = r'''
import os, sys, torch, torch.multiprocessing as mp

def worker(rank, world):
    import torch_musa, torch.distributed as dist
    dist.init_process_group("mccl", init_method="tcp://127.0.0.1:%(port)d", rank=rank, world_size=world)
    torch.musa.set_device(rank)
    t = torch.full((3,), float(rank + 1), device=f"musa:{rank}")
    dist.all_reduce(t)
    assert t.cpu().tolist() == [3., 3., 3.], t
    b = torch.tensor([rank * 10.], device="musa"); dist.broadcast(b, src=1)
    assert b.item() == 10.
    out = [torch.zeros(1, device="musa") for _ in range(world)]
    dist.all_gather(out, torch.tensor([float(rank)], device="musa"))
    assert [o.item() for o in out] == [0., 1.]
    # DDP: gradients are averaged across ranks
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1).musa()
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank])
    x = torch.full((2, 4), float(rank + 1), device="musa")
    ddp(x).sum().backward()
    g = model.weight.grad.cpu()
    assert torch.allclose(g, torch.full((1, 4), 3.0)), g
    dist.barrier(); dist.destroy_process_group()
    if rank == 0:
        print("OK", flush=True)

if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
'''


def test_single_process(sim):
    assert sim(ONE % {"port": free_port()}).stdout.strip().endswith("OK")


def test_two_processes_and_ddp(sim, tmp_path):
    script = tmp_path / "two.py"
    script.write_text(TWO % {"port": free_port()})
    assert "OK" in sim(f"import runpy; runpy.run_path({str(script)!r}, run_name='__main__')", timeout=600).stdout
