"""torch.cuda.comm and nn.DataParallel, written for CUDA, on one and two simulated devices.

References are computed here, on this process's CPU torch, from the same seeded data: the
children print their numbers and these tests compare.

Tolerances: comm functions only copy, split, concatenate and (reduce_add of two tensors) add
once, so they must equal the CPU exactly. DataParallel on one device runs the module on the
whole batch as the CPU does: exact too. On two devices each replica computes its half batch
and the gradients are summed across replicas (ReduceAddCoalesced), a different summation
order than the CPU's one matmul over the batch. In float64 (unit roundoff u = 2**-53, about
1.1e-16) reassociating a sum of n = 16 terms changes it by at most about n*u*sum|terms|, a
few 1e-15 for these O(1) values; five SGD steps (lr 0.1) of a small tanh network do not
amplify that by more than a small factor. rtol = atol = 1e-12 leaves a margin of about 100
over that bound, while a wrong reduction (a gradient missed or counted twice) moves the
weights by 1e-2 or more.
"""
import pytest
import torch

from tests._fresh import last_json, run_sim, sim_env

SEED, BATCH, STEPS, LR = 0, 16, 5, 0.1

TRAIN = """
    import json
    import torch.nn as nn
    ids, input_on = %r, %r
    torch.manual_seed(%d)
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3)).double()
    X, Y = torch.randn(%d, 5, dtype=torch.float64), torch.randn(%d, 3, dtype=torch.float64)
    model.to(ids[0] if isinstance(ids[0], str) else "cuda:%%d" %% ids[0])  # device_ids[0]
    dp = nn.DataParallel(model, device_ids=ids)
    opt = torch.optim.SGD(model.parameters(), lr=%r)
    losses = []
    for _ in range(%d):
        opt.zero_grad()
        out = dp(X if input_on == "cpu" else X.cuda())
        loss = nn.functional.mse_loss(out, Y.to(out.device))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(json.dumps({"losses": losses, "out_device": str(out.device),
                      "params": [p.detach().cpu().tolist() for p in model.parameters()],
                      "replicas": len(dp.device_ids)}))
"""


def _cpu_reference():
    torch.manual_seed(SEED)
    model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.Tanh(),
                                torch.nn.Linear(8, 3)).double()
    X = torch.randn(BATCH, 5, dtype=torch.float64)
    Y = torch.randn(BATCH, 3, dtype=torch.float64)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(X), Y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach() for p in model.parameters()]


# "forced": torch.cuda.is_available() answers True (TORCHADA_FORCE_CUDA_AVAILABLE, the
# default of `torchada run`), which sends DataParallel down its "cuda" device-type branch.
@pytest.mark.parametrize("ids,input_on,forced", [
    ([0], "cuda", False), ([0, 1], "cuda", False), ([0, 1], "cpu", False),
    (["cuda:1", "cuda:0"], "cuda", False), ([0, 1], "cpu", True), ([0], "cuda", True)])
def test_data_parallel_trains_like_the_cpu(ids, input_on, forced):
    env = sim_env(TORCHADA_FORCE_CUDA_AVAILABLE="1" if forced else "0")
    got = last_json(run_sim(TRAIN % (ids, input_on, SEED, BATCH, BATCH, LR, STEPS), env=env))
    losses, params = _cpu_reference()
    assert got["replicas"] == len(ids)
    first = ids[0] if isinstance(ids[0], int) else int(ids[0].split(":")[1])
    assert got["out_device"] == "musa:%d" % first
    got_params = [torch.tensor(p, dtype=torch.float64) for p in got["params"]]
    if len(ids) == 1:  # the same kernels in the same order: bit for bit
        assert got["losses"] == losses
        for g, p in zip(got_params, params):
            assert torch.equal(g, p)
    else:
        torch.testing.assert_close(torch.tensor(got["losses"]), torch.tensor(losses),
                                   rtol=1e-12, atol=1e-12)
        for g, p in zip(got_params, params):
            torch.testing.assert_close(g, p, rtol=1e-12, atol=1e-12)
    assert losses[-1] < losses[0]  # the reference did train


COMM = """
    import json
    import torch.cuda.comm as comm
    x = torch.arange(24, dtype=torch.float32).reshape(6, 4).cuda()
    r = {}
    b = comm.broadcast(x, devices=[0, torch.device("cuda:1")])
    r["broadcast"] = [[str(t.device), t.tolist()] for t in b] + [b[0] is x]
    s = comm.scatter(x, devices=[0, 1], dim=0)
    r["scatter"] = [[str(t.device), t.tolist()] for t in s]
    s2 = comm.scatter(x.cpu(), devices=["cuda:0", "cuda:1"], chunk_sizes=[1, 3], dim=1)
    r["scatter_sizes"] = [[str(t.device), t.tolist()] for t in s2]
    g = comm.gather([x, x.to("cuda:1") * 2], dim=1, destination=1)
    r["gather"] = [str(g.device), g.tolist()]
    gc = comm.gather([x, x.to("cuda:1")], destination="cpu")
    r["gather_cpu"] = [str(gc.device), gc.tolist()]
    ra = comm.reduce_add([x, x.to("cuda:1") * 3], destination=1)
    r["reduce_add"] = [str(ra.device), ra.tolist()]
    y = torch.ones(3, dtype=torch.int64, device="cuda")
    bc = comm.broadcast_coalesced([x, y], ["cuda:0", "cuda:1"])
    r["broadcast_coalesced"] = [[[str(t.device), t.tolist()] for t in row] for row in bc]
    r["coalesced_same"] = [bc[0][0] is x, bc[0][1] is y]
    rac = comm.reduce_add_coalesced([[x, y], [x.to("cuda:1"), y.to("cuda:1")]], destination=0)
    r["reduce_add_coalesced"] = [[str(t.device), t.tolist()] for t in rac]
    outs = [torch.empty(6, 4, device="cuda:0"), torch.empty(6, 4, device="cuda:1")]
    bo = comm.broadcast(x, out=outs)
    r["broadcast_out"] = [[str(t.device), t.tolist()] for t in bo] + [bo[1] is outs[1]]
    so = comm.scatter(x, out=[torch.empty(2, 4, device="cuda:0"), torch.empty(4, 4, device="cuda:1")])
    r["scatter_out"] = [[str(t.device), t.tolist()] for t in so]
    go = torch.empty(12, 4, device="cuda:1")
    r["gather_out"] = [str(comm.gather([x, x.to("cuda:1")], out=go).device), go.tolist()]
    try:
        comm.scatter(x, out=[torch.empty(2, 4, device="cuda:0"), torch.empty(2, 4, device="cuda:1")])
        r["scatter_out_bad"] = "accepted"
    except RuntimeError as exc:
        r["scatter_out_bad"] = str(exc)
    print(json.dumps(r))
"""


def test_comm_functions_equal_the_cpu():
    r = last_json(run_sim(COMM))
    x = torch.arange(24, dtype=torch.float32).reshape(6, 4)
    y = torch.ones(3, dtype=torch.int64)
    L = lambda t: t.tolist()  # noqa: E731
    assert r["broadcast"] == [["musa:0", L(x)], ["musa:1", L(x)], True]
    assert r["scatter"] == [["musa:0", L(x[:3])], ["musa:1", L(x[3:])]]
    assert r["scatter_sizes"] == [["musa:0", L(x[:, :1])], ["musa:1", L(x[:, 1:])]]
    assert r["gather"] == ["musa:1", L(torch.cat([x, x * 2], 1))]
    assert r["gather_cpu"] == ["cpu", L(torch.cat([x, x]))]
    assert r["reduce_add"] == ["musa:1", L(x + x * 3)]
    assert r["broadcast_coalesced"] == [[["musa:0", L(x)], ["musa:0", L(y)]],
                                        [["musa:1", L(x)], ["musa:1", L(y)]]]
    assert r["coalesced_same"] == [True, True]
    assert r["reduce_add_coalesced"] == [["musa:0", L(x + x)], ["musa:0", L(y + y)]]
    assert r["broadcast_out"] == [["musa:0", L(x)], ["musa:1", L(x)], True]
    assert r["scatter_out"] == [["musa:0", L(x[:2])], ["musa:1", L(x[2:])]]
    assert r["gather_out"] == ["musa:1", L(torch.cat([x, x]))]
    assert "does not match the source tensor size" in r["scatter_out_bad"]


def test_without_the_area_out_forms_fail():
    """What the area adds: torch_musa 2.7.1 binds no _broadcast_out (its comm.py calls it)."""
    proc = run_sim("""
        import torch.cuda.comm as comm
        x = torch.ones(2, device="cuda")
        comm.broadcast(x, out=[torch.empty(2, device="cuda:1")])
    """, env=sim_env(TORCHADA_DISABLE_AREAS="data_parallel"), check=False)
    assert proc.returncode != 0
    assert "has no attribute '_broadcast_out'" in proc.stderr
