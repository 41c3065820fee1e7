"""Unmodified CUDA distributed programs on the simulated device (2 simulated GPUs, mccl
underneath): one process, mp.spawn and torchrun. Every run has a timeout: a hung collective
fails the test, never the CI run."""
import json
import sys
import textwrap

from tests._fresh import free_port, run_argv, run_sim, sim_env


def last_json(proc):
    return json.loads(proc.stdout.strip().splitlines()[-1])


SINGLE = """
import json, os
import torch.distributed as dist
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="%(port)d", RANK="0", WORLD_SIZE="1")
out = {"nccl_available": dist.is_nccl_available(),
       "options": dist.ProcessGroupNCCL.Options().is_high_priority_stream}
dist.init_process_group(backend=dist.Backend.NCCL, device_id=0)
backend = dist.get_backend()
out["cuda_caller"] = backend == "nccl" and backend == dist.Backend.NCCL
out["musa_caller"] = backend == "mccl"
out["str"] = str(backend)
x = torch.arange(4.0, device="cuda")
dist.all_reduce(x)
out["all_reduce"] = x.tolist()
g = dist.new_group([0], backend="NCCL")
out["group"] = str(dist.get_backend(g))
sub, _ = dist.new_subgroups(group_size=1, backend="nccl")
enum, _ = dist.new_subgroups_by_enumeration([[0]], backend=dist.Backend.NCCL)
out["subgroups"] = [str(dist.get_backend(sub)), str(dist.get_backend(enum))]
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard, distribute_tensor
mesh = init_device_mesh("cuda", (1,))
a, b = torch.randn(8, 4), torch.randn(4, 6)
da = distribute_tensor(a.cuda(), mesh, [Shard(0)])
db = distribute_tensor(b.cuda(), mesh, [Replicate()])
out["mesh"] = mesh.device_type
out["dtensor_matmul"] = torch.allclose((da @ db).full_tensor().cpu(), a @ b, rtol=1.3e-6, atol=1e-5)
from torch.distributed.fsdp import fully_shard
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).cuda()
ref = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
ref.load_state_dict({k: v.cpu() for k, v in model.state_dict().items()})
fully_shard(model)
opt, ref_opt = torch.optim.SGD(model.parameters(), lr=0.1), torch.optim.SGD(ref.parameters(), lr=0.1)
batch = torch.randn(6, 4)
for _ in range(2):
    opt.zero_grad(); model(batch.cuda()).sum().backward(); opt.step()
    ref_opt.zero_grad(); ref(batch).sum().backward(); ref_opt.step()
out["fsdp2"] = torch.allclose(model(batch.cuda()).detach().cpu(), ref(batch).detach(),
                              rtol=1.3e-6, atol=1e-5)
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
torch.manual_seed(0)
cpu_module = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
ref1 = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
ref1.load_state_dict(cpu_module.state_dict())
fsdp1 = FSDP(cpu_module, device_id=torch.cuda.current_device())   # a CPU module, moved by FSDP
opt1, ref1_opt = torch.optim.SGD(fsdp1.parameters(), lr=0.1), torch.optim.SGD(ref1.parameters(), lr=0.1)
for _ in range(2):
    opt1.zero_grad(); fsdp1(batch.cuda()).sum().backward(); opt1.step()
    ref1_opt.zero_grad(); ref1(batch).sum().backward(); ref1_opt.step()
out["fsdp1"] = [str(next(fsdp1.parameters()).device),
                torch.allclose(fsdp1(batch.cuda()).detach().cpu(), ref1(batch).detach(),
                               rtol=1.3e-6, atol=1e-5)]
import torch.distributed.checkpoint as dcp
dcp.save({"w": torch.arange(4.0, device="cuda")}, checkpoint_id=%(ckpt)r)
back = {"w": torch.zeros(4, device="cuda")}
dcp.load(back, checkpoint_id=%(ckpt)r)
out["dcp"] = [back["w"].tolist(), str(back["w"].device)]
dist.destroy_process_group()
print(json.dumps(out))
"""


def test_single_process_nccl_program(tmp_path):
    code = SINGLE % {"port": free_port(), "ckpt": str(tmp_path / "ckpt")}
    out = last_json(run_sim(code, timeout=180))
    assert out == {"nccl_available": True, "options": False, "cuda_caller": True,
                   "musa_caller": True, "str": "mccl", "all_reduce": [0.0, 1.0, 2.0, 3.0],
                   "group": "mccl", "subgroups": ["mccl", "mccl"], "mesh": "musa", "dtensor_matmul": True, "fsdp2": True,
                   "fsdp1": ["musa:0", True], "dcp": [[0.0, 1.0, 2.0, 3.0], "musa:0"]}


WORKER = textwrap.dedent("""
    import json, os, sys
    import torch, torch.distributed as dist

    def collectives(rank, world):
        dev = torch.device("cuda", rank)
        torch.cuda.set_device(dev)
        out = {}
        x = torch.full((4,), float(rank + 1), device=dev)
        dist.all_reduce(x)
        out["all_reduce"] = x.tolist()
        gathered = torch.empty(2 * world, device=dev)
        dist.all_gather_into_tensor(gathered, torch.full((2,), float(rank), device=dev))
        out["all_gather"] = gathered.tolist()
        scattered = torch.empty(2, device=dev)
        dist.reduce_scatter_tensor(scattered, torch.arange(2.0 * world, device=dev) * (rank + 1))
        out["reduce_scatter"] = scattered.tolist()
        b = torch.full((3,), float(rank), device=dev)
        dist.broadcast(b, src=1)
        out["broadcast"] = b.tolist()
        a2a = torch.empty(world, device=dev)
        dist.all_to_all_single(a2a, torch.arange(float(world), device=dev) + 10 * rank)
        out["all_to_all"] = a2a.tolist()
        objs = [None] * world
        dist.all_gather_object(objs, {"rank": rank})
        out["objects"] = objs
        dist.barrier()
        return out

    def ddp(rank, world):
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 2).cuda(rank)
        net = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank], output_device=rank)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        g = torch.Generator().manual_seed(1)
        data, target = torch.randn(8, 3, generator=g), torch.randn(8, 2, generator=g)
        for _ in range(3):
            opt.zero_grad()
            shard = slice(4 * rank, 4 * rank + 4)
            loss = torch.nn.functional.mse_loss(net(data[shard].cuda(rank)), target[shard].cuda(rank))
            loss.backward()
            opt.step()
        return [p.detach().cpu().tolist() for p in model.parameters()]

    def tensor_parallel(rank, world):
        # a column-parallel then row-parallel linear pair, as SGLang / vLLM shard them
        g = torch.Generator().manual_seed(2)
        x, w1, w2 = torch.randn(3, 4, generator=g), torch.randn(8, 4, generator=g), torch.randn(2, 8, generator=g)
        dev = torch.device("cuda", rank)
        cols = slice(4 * rank, 4 * rank + 4)          # this rank's output features of w1
        h = x.to(dev) @ w1[cols].to(dev).t()          # column parallel: no communication
        y = h @ w2[:, cols].to(dev).t()               # row parallel: partial sums ...
        dist.all_reduce(y)                            # ... summed across ranks
        return y.cpu().tolist(), (x @ w1.t() @ w2.t()).tolist()

    def main(rank, world, port, out_dir):
        dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                                world_size=world)
        result = {"backend": str(dist.get_backend()), "is_nccl": dist.get_backend() == "nccl"}
        result.update(collectives(rank, world))
        result["ddp"] = ddp(rank, world)
        result["tp"], result["tp_ref"] = tensor_parallel(rank, world)
        dist.destroy_process_group()
        with open(os.path.join(out_dir, "rank%d.json" % rank), "w") as fh:
            json.dump(result, fh)

    if __name__ == "__main__":
        if sys.argv[1] == "spawn":
            import torch.multiprocessing as mp
            mp.spawn(main, args=(2, int(sys.argv[2]), sys.argv[3]), nprocs=2, join=True)
        else:  # torchrun: env:// rendezvous
            dist.init_process_group("nccl")
            rank, world = dist.get_rank(), dist.get_world_size()
            result = collectives(rank, world)
            result["backend"] = str(dist.get_backend())
            dist.destroy_process_group()
            with open(os.path.join(sys.argv[2], "rank%d.json" % rank), "w") as fh:
                json.dump(result, fh)
""")


def cpu_ddp_reference():
    """The same three SGD steps on the full batch in one CPU process: DDP averages the two
    shards' gradients, which for a mean loss over equal shards is the full-batch gradient."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(1)
    data, target = torch.randn(8, 3, generator=g), torch.randn(8, 2, generator=g)
    for _ in range(3):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(data), target).backward()
        opt.step()
    return [p.detach().tolist() for p in model.parameters()]


def check_collectives(rank, out):
    assert out["all_reduce"] == [3.0] * 4
    assert out["all_gather"] == [0.0, 0.0, 1.0, 1.0]
    assert out["reduce_scatter"] == ([0.0, 3.0] if rank == 0 else [6.0, 9.0])
    assert out["broadcast"] == [1.0] * 3
    assert out["all_to_all"] == ([0.0, 10.0] if rank == 0 else [1.0, 11.0])
    assert out["objects"] == [{"rank": 0}, {"rank": 1}]


def test_mp_spawn_collectives_and_ddp_match_references(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(WORKER)
    run_argv([script, "spawn", free_port(), tmp_path], env=sim_env(), timeout=240)
    reference = cpu_ddp_reference()
    for rank in (0, 1):
        out = json.loads((tmp_path / ("rank%d.json" % rank)).read_text())
        assert out["backend"] == "mccl" and out["is_nccl"] is True
        check_collectives(rank, out)
        import torch

        for mine, ref in zip(out["ddp"], reference):
            torch.testing.assert_close(torch.tensor(mine), torch.tensor(ref))
        # the CPU product of the full weights, computed in the same worker
        torch.testing.assert_close(torch.tensor(out["tp"]), torch.tensor(out["tp_ref"]))


def test_torchrun_env_rendezvous(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(WORKER)
    run_argv(["-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port",
              free_port(), script, "torchrun", tmp_path], env=sim_env(), timeout=240)
    for rank in (0, 1):
        out = json.loads((tmp_path / ("rank%d.json" % rank)).read_text())
        assert out["backend"] == "mccl"
        check_collectives(rank, out)


def test_unmappable_device_gets_torchs_behaviour_and_one_line_from_torchada():
    # torch itself accepts any device name in a backend map at init (it fails, if ever, at
    # the first collective on that device); torchada adds one line saying what it did
    proc = run_sim("""
        import os, torch.distributed as dist
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="%d", RANK="0", WORLD_SIZE="1")
        dist.init_process_group(backend="cpu:gloo,xpu:nccl")
        print(str(dist.get_backend()))
    """ % free_port(), timeout=120)
    assert proc.stdout.strip().splitlines()[-1] == "cpu:gloo,xpu:mccl"
    assert proc.stderr.count("torchada: backend 'cpu:gloo,xpu:nccl': torchada translated") == 1
    assert "cannot map the device(s) xpu" in proc.stderr


def test_nccl_without_mccl_names_the_fix():
    proc = run_sim("""
        import os, torch.distributed as dist
        dist.is_mccl_available = lambda: False      # a torch_musa built with USE_MCCL=0
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="%d", RANK="0", WORLD_SIZE="1")
        dist.init_process_group("nccl")
    """ % free_port(), check=False, timeout=120)
    assert proc.returncode != 0
    assert "backend 'nccl' means mccl on MUSA, but this torch_musa has no MCCL" in proc.stderr
