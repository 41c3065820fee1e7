"""FSDP2 ``fully_shard`` while the simulated torch_musa is loaded: torch_musa's FSDP2 patches
(modelled from its v2.7.1 source, torch_musa/distributed/_composable/fsdp/) set up MUSA
streams for every mesh, so a CPU mesh on gloo breaks in its root pre-forward; the fsdp2
area sends non-MUSA meshes to PyTorch's own FSDP2 and keeps torch_musa's for musa meshes.
References: the same program on this torch without torch_musa (PyTorch's FSDP2), the same
model trained unsharded on the CPU."""
import json
import textwrap

import torch

from tests._fresh import clean_env, free_port, last_json, run_argv, run_sim, sim_env

TORCH = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])

CPU_MESH = textwrap.dedent("""
    import copy, json, os, sys
    import torch, torchada
    import torch.distributed as dist
    import torch.multiprocessing as mp

    def net():
        return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))

    def main(rank, world, port, out):
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        dist.init_process_group("gloo", rank=rank, world_size=world)
        from torch.distributed.device_mesh import init_device_mesh
        import torch.distributed.fsdp as fsdp
        mesh = init_device_mesh("cpu", (world,))
        torch.manual_seed(0)
        model = net()
        ref = copy.deepcopy(model)
        batches = [torch.randn(6, 4) for _ in range(world)]
        fsdp.fully_shard(model, mesh=mesh)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
        record = {"loss": [], "ref_loss": [], "grad_err": [], "param_err": None}
        for _ in range(2):
            opt.zero_grad(); ref_opt.zero_grad()
            loss = model(batches[rank]).sum()
            loss.backward()
            # FSDP averages the ranks' gradients: the reference is the mean loss of both batches
            ref_loss = sum(ref(b).sum() for b in batches) / world
            ref_loss.backward()
            record["loss"].append(loss.item())
            record["ref_loss"].append(ref(batches[rank]).sum().item())
            record["grad_err"].append(max(
                (p.grad.full_tensor() - r.grad).abs().max().item()
                for p, r in zip(model.parameters(), ref.parameters())))
            opt.step(); ref_opt.step()
        record["param_err"] = max((p.full_tensor() - r).abs().max().item()
                                  for p, r in zip(model.parameters(), ref.parameters()))
        record["routed"] = getattr(fsdp.fully_shard, "_torchada_fsdp2_router", False)
        from torch.distributed.fsdp._fully_shard import _fully_shard
        wrapper = fsdp.fully_shard.__wrapped__ if record["routed"] else None
        record["torch_musa_wrapper"] = wrapper and [wrapper.__globals__["__name__"],
                                                    wrapper.__wrapped__ is _fully_shard.fully_shard]
        dist.destroy_process_group()
        with open(os.path.join(out, "rank%d.json" % rank), "w") as fh:
            json.dump(record, fh)

    if __name__ == "__main__":
        mp.spawn(main, args=(2, int(sys.argv[1]), sys.argv[2]), nprocs=2, join=True)
""")


def run_cpu_mesh(tmp_path, env):
    script = tmp_path / "fsdp2_cpu_mesh.py"
    script.write_text(CPU_MESH)
    out = tmp_path / ("out%d" % len(list(tmp_path.glob("out*"))))
    out.mkdir()
    proc = run_argv([script, free_port(), out], env=env, timeout=240, check=False)
    return proc, out


def records(out):
    return [json.loads((out / ("rank%d.json" % rank)).read_text()) for rank in (0, 1)]


NUMBERS = ("loss", "ref_loss", "grad_err", "param_err")


def test_cpu_mesh_on_gloo_trains_as_pytorchs_own_fsdp2(tmp_path):
    # the reference: the same program on this torch without torch_musa (PyTorch's FSDP2)
    plain, plain_out = run_cpu_mesh(tmp_path, clean_env())
    assert plain.returncode == 0, plain.stderr[-4000:]
    proc, out = run_cpu_mesh(tmp_path, sim_env())
    assert proc.returncode == 0, proc.stderr[-4000:]
    for record, reference in zip(records(out), records(plain_out)):
        assert record["routed"] is True
        # fully_shard stays torch_musa's wrapper underneath (its lazy patches, its identity)
        assert record["torch_musa_wrapper"] == ["torch_musa.distributed._composable.fsdp.patch", True]
        # the same CPU float32 operations in the same order: the same bits
        assert {k: record[k] for k in NUMBERS} == {k: reference[k] for k in NUMBERS}
        if TORCH >= (2, 13):
            # and the unsharded model's numbers: the same parameters in each forward, and the
            # ranks' gradients averaged (torch 2.7's FSDP2 leaves float32 averaging to the
            # backend's AVG, which gloo sums: there the reference run shows the sum)
            assert record["loss"] == record["ref_loss"]
            assert max(record["grad_err"]) < 1e-6 and record["param_err"] < 1e-6, record


def test_without_the_area_torch_musas_streams_break_the_cpu_mesh(tmp_path):
    # The defect the area routes around, as torch_musa 2.7.1 has it: its communication
    # context makes MUSA streams for a CPU mesh, and the root pre-forward makes one wait on
    # the CPU stream (torch.cpu.Stream.record_event returns None).
    proc, _ = run_cpu_mesh(tmp_path, sim_env(TORCHADA_DISABLE_AREAS="fsdp2"))
    assert proc.returncode != 0
    assert "_root_pre_forward" in proc.stderr and "wait_stream" in proc.stderr
    assert "'NoneType' object has no attribute 'wait'" in proc.stderr


MUSA_THEN_CPU = """
import copy, json, os
import torch.distributed as dist
import torch.distributed.fsdp as fsdp
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPCommContext, FSDPParamGroup
from torch.distributed.fsdp._fully_shard._fsdp_state import FSDPState
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="%(port)d", RANK="0", WORLD_SIZE="1")
dist.init_process_group(backend="cpu:gloo,cuda:nccl", device_id=0)
out = {}

def train(device, mesh):
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    model = copy.deepcopy(ref).to(device)
    fsdp.fully_shard(model, mesh=mesh)
    opt, ref_opt = torch.optim.SGD(model.parameters(), lr=0.1), torch.optim.SGD(ref.parameters(), lr=0.1)
    batch = torch.randn(6, 4)
    for _ in range(2):
        opt.zero_grad(); model(batch.to(device)).sum().backward(); opt.step()
        ref_opt.zero_grad(); ref(batch).sum().backward(); ref_opt.step()
    same = torch.allclose(model(batch.to(device)).detach().cpu(), ref(batch).detach(), rtol=1.3e-6, atol=1e-5)
    return model, same

musa_model, out["musa_same"] = train("cuda", init_device_mesh("cuda", (1,)))
ctx = musa_model._get_fsdp_state()._comm_ctx
current = torch.cuda.current_stream()
# torch_musa's NO_OVERLAP context (the default below mp_31): every stream is the current one
out["musa_streams"] = [s == current for s in (ctx.all_gather_copy_in_stream, ctx.all_gather_stream,
                                               ctx.reduce_scatter_stream, ctx.all_reduce_stream)]
out["owners"] = {n: getattr(getattr(c, n), "__module__", None) for c, n in (
    (FSDPCommContext, "lazy_init"), (FSDPParamGroup, "wait_for_unshard"),
    (FSDPParamGroup, "post_backward"), (FSDPState, "_init_shared_state"), (FSDPState, "_pre_forward"))}
cpu_model, out["cpu_same"] = train("cpu", init_device_mesh("cpu", (1,)))
out["cpu_stream"] = type(cpu_model._get_fsdp_state()._comm_ctx.all_gather_stream).__module__
dist.destroy_process_group()
print(json.dumps(out))
"""


def test_musa_mesh_keeps_torch_musas_fsdp2_and_a_later_cpu_mesh_gets_pytorchs():
    out = last_json(run_sim(MUSA_THEN_CPU % {"port": free_port()}, timeout=240))
    assert out["musa_same"] is True and out["cpu_same"] is True
    assert out["musa_streams"] == [True, True, True, True]
    # the dispatchers carry torch_musa's names (functools.wraps): its functions ran for musa
    mod = "torch_musa.distributed._composable.fsdp."
    assert out["owners"] == {"lazy_init": mod + "custom_overlap_patch",
                             "wait_for_unshard": mod + "patch", "post_backward": mod + "patch",
                             "_init_shared_state": mod + "custom_overlap_patch",
                             "_pre_forward": mod + "custom_overlap_patch"}
    assert out["cpu_stream"] == "torch.cpu"  # PyTorch's own context on the CPU mesh
