"""Kernels torch_musa registers where stock torch has no CPU kernel, on the simulated device:
nn.LSTM / nn.GRU (the fused cells and their backward) and nn.SyncBatchNorm (the statistics
kernels, two processes over the simulated mccl), each compared with torch's CPU run.

Tolerances are torch.testing's defaults for the dtype: the device kernels follow PyTorch's
CUDA arithmetic (RNN.cu, Normalization.cuh), which sums in another order than the CPU's.
"""
import json

from tests._fresh import free_port, last_json, run_argv, run_sim, sim_env

RNN = r'''
import json
from torch.utils._python_dispatch import TorchDispatchMode

class Seen(TorchDispatchMode):
    def __init__(self):
        super().__init__(); self.ops = set()
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.add(str(func.overloadpacket.__name__))
        return func(*args, **(kwargs or {}))

def run(make, dtype, shape, seq):
    torch.manual_seed(0)
    cpu = make().to(dtype)
    dev = make().to(dtype)
    dev.load_state_dict(cpu.state_dict())
    dev = dev.cuda()
    x = torch.randn(*shape, dtype=dtype)
    xc, xd = x.clone().requires_grad_(), x.cuda().requires_grad_()
    out_c, out_d = cpu(xc), None
    seen = Seen()
    with seen:
        out_d = dev(xd)
    flat = lambda o: [t for t in (o if isinstance(o, tuple) else (o,))
                      for t in (t if isinstance(t, tuple) else (t,))]
    oc, od = flat(out_c), flat(out_d)
    g = [torch.randn(t.shape, dtype=dtype) for t in oc]
    sum((a * b).sum() for a, b in zip(oc, g)).backward()
    with seen:
        sum((a * b.cuda()).sum() for a, b in zip(od, g)).backward()
    assert all(t.is_cuda for t in od)
    for a, b in zip(oc, od):
        torch.testing.assert_close(b.detach().cpu(), a.detach())
    torch.testing.assert_close(xd.grad.cpu(), xc.grad)
    for (name, p), q in zip(cpu.named_parameters(), dev.parameters()):
        torch.testing.assert_close(q.grad.cpu(), p.grad, msg=name)
    return sorted(o for o in seen.ops if "thnn" in o)

res = {}
for dtype in (torch.float32, torch.float64):
    d = str(dtype)
    res["lstm " + d] = run(lambda: torch.nn.LSTM(4, 6, num_layers=2, bidirectional=True), dtype, (5, 3, 4), True)
    res["gru " + d] = run(lambda: torch.nn.GRU(4, 6, num_layers=2, batch_first=True), dtype, (3, 5, 4), True)
    res["lstm nobias " + d] = run(lambda: torch.nn.LSTM(4, 6, bias=False), dtype, (5, 3, 4), True)
    res["gru nobias " + d] = run(lambda: torch.nn.GRU(4, 6, bias=False), dtype, (5, 3, 4), True)
    res["lstmcell " + d] = run(lambda: torch.nn.LSTMCell(4, 6), dtype, (3, 4), False)
    res["grucell " + d] = run(lambda: torch.nn.GRUCell(4, 6), dtype, (3, 4), False)
print(json.dumps(res))
'''

LSTM_OPS = ["_thnn_fused_lstm_cell", "_thnn_fused_lstm_cell_backward_impl"]
GRU_OPS = ["_thnn_fused_gru_cell", "_thnn_fused_gru_cell_backward"]


def test_lstm_and_gru_on_cuda_match_cpu_forward_and_backward():
    out = last_json(run_sim(RNN, timeout=600))
    for name, ops in out.items():
        # the fused cells (and their backward) served the device run
        assert ops == (LSTM_OPS if "lstm" in name else GRU_OPS), (name, ops)


SYNC_BN = r'''
import json, os, sys
import torch
import torch.distributed as dist

def main(rank, world, port, out_dir):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=world)
    torch.cuda.set_device(rank)
    res = {}
    for dtype in (torch.float32, torch.float64):
        g = torch.Generator().manual_seed(0)
        x = torch.randn(8, 3, 5, 5, generator=g, dtype=dtype)
        w = torch.randn(8, 3, 5, 5, generator=g, dtype=dtype)
        bn = torch.nn.SyncBatchNorm(3).to(dtype)
        with torch.no_grad():
            bn.weight.copy_(torch.randn(3, generator=g))
            bn.bias.copy_(torch.randn(3, generator=g))
        bn = bn.cuda(rank)
        shard = slice(4 * rank, 4 * rank + 4)
        xs = x[shard].cuda(rank).requires_grad_()
        for _ in range(2):            # two steps: the running statistics move twice
            xs.grad, bn.weight.grad, bn.bias.grad = None, None, None
            out = bn(xs)
            (out * w[shard].cuda(rank)).sum().backward()
        res[str(dtype)] = {k: v.detach().cpu().tolist() for k, v in dict(
            out=out, gx=xs.grad, gw=bn.weight.grad, gb=bn.bias.grad, rm=bn.running_mean,
            rv=bn.running_var).items()}
    dist.destroy_process_group()
    with open(os.path.join(out_dir, "rank%d.json" % rank), "w") as fh:
        json.dump(res, fh)

if __name__ == "__main__":
    import torch.multiprocessing as mp
    mp.spawn(main, args=(2, int(sys.argv[1]), sys.argv[2]), nprocs=2, join=True)
'''


def cpu_reference(dtype):
    """BatchNorm2d on the whole batch in one CPU process: what SyncBatchNorm computes from
    the two ranks' halves (weight and bias gradients are per rank: their sum)."""
    import torch

    g = torch.Generator().manual_seed(0)
    x = torch.randn(8, 3, 5, 5, generator=g, dtype=dtype)
    w = torch.randn(8, 3, 5, 5, generator=g, dtype=dtype)
    bn = torch.nn.BatchNorm2d(3).to(dtype)
    with torch.no_grad():
        bn.weight.copy_(torch.randn(3, generator=g))
        bn.bias.copy_(torch.randn(3, generator=g))
    xs = x.clone().requires_grad_()
    for _ in range(2):
        xs.grad, bn.weight.grad, bn.bias.grad = None, None, None
        out = bn(xs)
        (out * w).sum().backward()
    return dict(out=out.detach(), gx=xs.grad, gw=bn.weight.grad, gb=bn.bias.grad,
                rm=bn.running_mean, rv=bn.running_var)


def test_sync_batchnorm_two_processes_matches_cpu_batchnorm(tmp_path):
    import torch

    script = tmp_path / "syncbn.py"
    script.write_text(SYNC_BN)
    run_argv([script, free_port(), tmp_path], env=sim_env(), timeout=300)
    ranks = [json.loads((tmp_path / ("rank%d.json" % r)).read_text()) for r in (0, 1)]
    for dtype in (torch.float32, torch.float64):
        ref = cpu_reference(dtype)
        got = [{k: torch.tensor(v, dtype=dtype) for k, v in r[str(dtype)].items()} for r in ranks]
        torch.testing.assert_close(torch.cat([got[0]["out"], got[1]["out"]]), ref["out"])
        torch.testing.assert_close(torch.cat([got[0]["gx"], got[1]["gx"]]), ref["gx"])
        for key in ("gw", "gb"):
            torch.testing.assert_close(got[0][key] + got[1][key], ref[key])
        for r in got:
            torch.testing.assert_close(r["rm"], ref["rm"])
            torch.testing.assert_close(r["rv"], ref["rv"])
