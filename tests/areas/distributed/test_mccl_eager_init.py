"""MCCL communicators made at group creation when the device is known, as NCCL's on CUDA
(TORCHADA_MCCL_EAGER_INIT, docs/distributed.md). Two simulated GPUs, two processes.

The observable is the real backend's ``_is_initialized()`` (torch_musa Register.cpp:
false while the group has no communicator); the simulator's ``_sim_communicators()`` also
lists each communicator made, so a second, redundant connect would show."""
import json

from tests._fresh import run_argv, sim_env

WORKER = r'''
import json, os, sys
import torch, torchada
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

# Moore Threads' torch connects the backend itself when device_id is given (the simulator
# models that patch hunk); "stock" rounds run torch's own helper instead, which skips
# backends that cannot split, so torchada's own connect is what is tested there.
PATCHED = c10d._new_process_group_helper
STOCK = getattr(PATCHED, "__wrapped__", PATCHED)

ROUNDS = [  # name, TORCHADA_MCCL_EAGER_INIT, torch carries the hunk, device_id given
    ("eager", None, True, True),
    ("lazy", "0", True, True),
    ("stock_eager", None, False, True),
    ("stock_lazy", "0", False, True),
    ("no_device", None, True, False),
    ("malformed", "maybe", True, True),
]


def communicators(rank):
    backend = dist.group.WORLD._get_backend(torch.device("cuda", rank))
    return [backend._is_initialized(), [str(d) for d in backend._sim_communicators()]]


def one_round(rank, world, folder, name, switch, patched, with_device):
    os.environ.pop("TORCHADA_MCCL_EAGER_INIT", None)
    if switch is not None:
        os.environ["TORCHADA_MCCL_EAGER_INIT"] = switch
    c10d._new_process_group_helper = PATCHED if patched else STOCK
    extra = {"device_id": torch.device("cuda", rank)} if with_device else {}
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="file://" + os.path.join(folder, name),
                            rank=rank, world_size=world, **extra)
    at_init = communicators(rank)
    x = torch.full((2,), float(rank + 1), device="cuda")
    dist.all_reduce(x)
    after = communicators(rank)
    dist.destroy_process_group()
    return {"at_init": at_init, "after": after, "sum": x.tolist()}


def main(rank, world, folder):
    out = {name: one_round(rank, world, folder, name, *rest) for name, *rest in ROUNDS}
    with open(os.path.join(folder, "rank%d.json" % rank), "w") as fh:
        json.dump(out, fh)


if __name__ == "__main__":
    import torch.multiprocessing as mp
    mp.spawn(main, args=(2, sys.argv[1]), nprocs=2, join=True)
'''


def test_communicator_exists_at_init_unless_the_switch_keeps_it_lazy(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    proc = run_argv([script, tmp_path], env=sim_env(), timeout=240)
    for rank in (0, 1):
        out = json.loads((tmp_path / ("rank%d.json" % rank)).read_text())
        mine = ["musa:%d" % rank]
        for name in ("eager", "stock_eager", "malformed"):
            # made at init, and only once (torchada does not connect a second time)
            assert out[name]["at_init"] == [True, mine], name
            assert out[name]["after"] == [True, mine], name
        for name in ("lazy", "stock_lazy", "no_device"):
            # none until the first collective makes it
            assert out[name]["at_init"] == [False, []], name
            assert out[name]["after"] == [True, mine], name
        for name in out:
            assert out[name]["sum"] == [3.0, 3.0], name
    # the settings table's standard warning, once per process
    warning = "torchada: TORCHADA_MCCL_EAGER_INIT='maybe' is not valid"
    assert proc.stderr.count(warning) == 2, proc.stderr[-3000:]
