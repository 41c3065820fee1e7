"""Unmodified CUDA code under torch.compile: each case compares the compiled result with the
same function run eagerly (and eager musa results are checked against the CPU elsewhere).
Usage: python compile_corpus.py <backend>; prints one JSON object {case: result}."""
import json
import sys

import torch

backend = sys.argv[1]
results = {}
def check(name, fn):
    try:
        results[name] = fn()
    except Exception as e:
        results[name] = "FAIL %s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])

def t_device_ctx():
    def f(x):
        with torch.cuda.device(0):
            y = torch.ones(3, device="cuda") + x
        return y * 2
    x = torch.ones(3, device="cuda")
    return torch.equal(torch.compile(f, backend=backend, fullgraph=False)(x).cpu(), f(x).cpu())
def t_factories():
    def f(x):
        return x + torch.arange(3, device="cuda") + torch.zeros(3, device=torch.device("cuda", 0))
    x = torch.ones(3, device="cuda")
    return torch.equal(torch.compile(f, backend=backend)(x).cpu(), f(x).cpu())
def t_to_cuda():
    def f(x):
        return (x.cuda() * 2).to("cuda:0") + 1
    x = torch.ones(3)
    return torch.equal(torch.compile(f, backend=backend)(x).cpu(), f(x).cpu())
def t_streams():
    def f(x):
        s = torch.cuda.current_stream()
        e = torch.cuda.Event()
        e.record(s)
        y = x * 3
        e.wait(s)
        return y
    x = torch.ones(3, device="cuda")
    return torch.equal(torch.compile(f, backend=backend)(x).cpu(), f(x).cpu())
def t_fullgraph_factories():
    def f(x):
        return x + torch.ones(3, device="cuda")
    x = torch.ones(3, device="cuda")
    return torch.equal(torch.compile(f, backend=backend, fullgraph=True)(x).cpu(), f(x).cpu())
def t_training():
    m = torch.nn.Linear(4, 2).cuda()
    cm = torch.compile(m, backend=backend)
    x = torch.randn(5, 4, device="cuda")
    cm(x).sum().backward()
    g1 = m.weight.grad.clone(); m.weight.grad = None
    m(x).sum().backward()
    return torch.allclose(g1.cpu(), m.weight.grad.cpu())
def t_fx():
    class M(torch.nn.Module):
        def forward(self, x):
            return x + torch.ones(3, device=torch.device("cuda"))
    gm = torch.fx.symbolic_trace(M())
    x = torch.ones(3, device="cuda")
    gm2 = torch.fx.GraphModule(gm, gm.graph)
    return torch.equal(gm2(x).cpu(), M()(x).cpu()) and torch.equal(torch.compile(gm2, backend=backend)(x).cpu(), M()(x).cpu())
def t_script():
    @torch.jit.script
    def f(x):
        return x + torch.ones(3, device="cuda")
    x = torch.ones(3, device="cuda")
    return f(x).device.type
for name, fn in list(globals().items()):
    if name.startswith("t_"):
        check(name[2:], fn)
print(json.dumps(results))
