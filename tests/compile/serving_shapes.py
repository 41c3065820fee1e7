"""Serving and training shapes under torch.compile(fullgraph=True), as unmodified CUDA code.

    python serving_shapes.py <backend>      # prints one JSON object

* ``decode``: one decode step of a tiny attention model (embedding, q/k/v projections, a KV
  cache written with ``index_copy_`` at positions copied host-to-device with
  ``.to("cuda", non_blocking=True)``, SDPA over the cache, greedy and sampled next tokens with
  ``multinomial`` drawing with replacement, the form a graph can capture) compiled with ``fullgraph=True``, run for several steps against the same
  step run eagerly from the same state and seed.
* ``decode_graph``: the compiled step captured once in a CUDA graph (``torch.cuda.graph``) and
  replayed for new tokens and positions copied into its static inputs; each replay equals
  the eager step on the same inputs.
* ``cudagraphs_backend``: the same step under ``torch.compile(backend="cudagraphs")``
  (Dynamo's CUDA-graph trees over AOT autograd: what ``mode="reduce-overhead"`` does without
  Inductor's code generation).
* ``train``: a training step with ``torch.autocast("cuda")``, ``GradScaler("cuda")`` and
  ``AdamW(fused=True)``; the forward and loss compiled with ``fullgraph=True``; parameters
  after several steps equal those of the same steps run eagerly.

Each result records equality with eager (values, dtypes, devices), the graphs compiled and
the recompilations.
"""
import copy
import json
import sys

import os

import torch
import torch._dynamo
import torch._dynamo.testing
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "matrix"))
from settle import settle_overrides  # noqa: E402

BACKEND = sys.argv[1] if len(sys.argv) > 1 else "eager"
VOCAB, DIM, HEADS, MAXLEN, BATCH = 32, 16, 2, 8, 2
out = {}


class TinyDecoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, DIM)
        self.qkv = torch.nn.Linear(DIM, 3 * DIM)
        self.proj = torch.nn.Linear(DIM, DIM)
        self.head = torch.nn.Linear(DIM, VOCAB)

    def forward(self, tokens, positions, k_cache, v_cache):
        pos = positions.to("cuda", non_blocking=True)
        h = self.embed(tokens)                                   # [B, 1, D]
        q, k, v = self.qkv(h).split(DIM, dim=-1)
        shape = (BATCH, 1, HEADS, DIM // HEADS)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))   # [B, H, 1, Dh]
        k_cache.index_copy_(2, pos, k)
        v_cache.index_copy_(2, pos, v)
        steps = torch.arange(MAXLEN, device="cuda")
        mask = (steps <= pos).view(1, 1, 1, MAXLEN)
        a = F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=mask)
        h = h + self.proj(a.transpose(1, 2).reshape(BATCH, 1, DIM))
        logits = self.head(h)[:, -1].float()
        probs = torch.softmax(logits, dim=-1)
        # with replacement and two draws: ATen's multinomial checks the probabilities on
        # the host (.item(), refused in graph capture) for one draw or no replacement
        greedy = torch.multinomial(F.one_hot(probs.argmax(-1), VOCAB).float(), 2, True)[:, :1]
        sampled = torch.multinomial(probs, 2, replacement=True)[:, :1]
        return logits, greedy, sampled


def fresh_caches():
    shape = (BATCH, HEADS, MAXLEN, DIM // HEADS)
    return torch.zeros(shape, device="cuda"), torch.zeros(shape, device="cuda")


def same(a, b):
    return (a.device == b.device and a.dtype == b.dtype and a.shape == b.shape
            and torch.equal(a.cpu(), b.cpu()))


def decode_run(step, model, n=4, seed=0, host_positions=True):
    """n steps from token 1, feeding back the greedy token; every output and both caches."""
    torch.manual_seed(seed)
    k_cache, v_cache = fresh_caches()
    tokens = torch.ones(BATCH, 1, dtype=torch.long, device="cuda")
    outs = []
    for i in range(n):
        positions = torch.tensor([i])          # host positions, copied inside the step
        if not host_positions:
            positions = positions.to("cuda")
        logits, greedy, sampled = step(model, tokens, positions, k_cache, v_cache)
        outs.append((logits, greedy, sampled))
        tokens = greedy.contiguous()
    return outs, (k_cache, v_cache)


def model_step(model, tokens, positions, k_cache, v_cache):
    return model(tokens, positions, k_cache, v_cache)


def decode_case(model):
    counter = torch._dynamo.testing.CompileCounterWithBackend(BACKEND)
    compiled = torch.compile(model_step, backend=counter, fullgraph=True)
    eager, eager_caches = decode_run(model_step, model)
    got, got_caches = decode_run(compiled, model)
    equal = all(same(a, b) for e, g in zip(eager, got) for a, b in zip(e, g)) and \
        all(same(a, b) for a, b in zip(eager_caches, got_caches))
    return {"equal": equal, "graphs": counter.frame_count,
            "device": str(got[0][0].device), "steps": len(got)}


def decode_graph_case(model):
    """Capture the compiled step once; replay it for new inputs copied into static ones."""
    compiled = torch.compile(model_step, backend=BACKEND, fullgraph=True)
    k_cache, v_cache = fresh_caches()
    static_tokens = torch.ones(BATCH, 1, dtype=torch.long, device="cuda")
    # a captured graph reads no host memory: its positions are a static device tensor
    static_pos_dev = torch.zeros(1, dtype=torch.long).to("cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):                      # warm-up (compiles) outside the capture
            compiled(model, static_tokens, static_pos_dev, k_cache, v_cache)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_logits, static_greedy, _ = compiled(model, static_tokens, static_pos_dev,
                                                   k_cache, v_cache)
    ek, ev = fresh_caches()
    k_cache.zero_(), v_cache.zero_()
    tokens = torch.ones(BATCH, 1, dtype=torch.long, device="cuda")
    equal, distinct = True, set()
    for i in range(4):
        static_tokens.copy_(tokens)
        static_pos_dev.copy_(torch.tensor([i]).to("cuda", non_blocking=True))
        graph.replay()
        ref_logits, ref_greedy, _ = model(tokens, torch.tensor([i]), ek, ev)
        equal = equal and same(static_logits, ref_logits) and same(static_greedy, ref_greedy)
        distinct.add(tuple(static_logits.flatten()[:4].tolist()))
        tokens = ref_greedy.contiguous()
    equal = equal and same(k_cache, ek) and same(v_cache, ev)
    return {"equal": equal, "replays_distinct": len(distinct), "replays": 4}


def cudagraphs_backend_case(model):
    """Device positions: CUDA-graph trees skip a graph with a CPU input (on CUDA too)."""
    from torch._dynamo.utils import counters

    compiled = torch.compile(model_step, backend="cudagraphs", fullgraph=True)
    eager, _ = decode_run(model_step, model, host_positions=False)
    skips = counters["inductor"]["cudagraph_skips"]
    got, _ = decode_run(compiled, model, host_positions=False)
    equal = all(same(e[0], g[0]) and same(e[1], g[1]) for e, g in zip(eager, got))
    return {"equal": equal, "skipped": counters["inductor"]["cudagraph_skips"] - skips}


class TinyMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 16)
        self.b = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def train_steps(model, loss_fn, n=4):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, fused=True)
    scaler = torch.amp.GradScaler("cuda")
    torch.manual_seed(1)
    losses = []
    for _ in range(n):
        x = torch.randn(6, 8, device="cuda")
        y = torch.randint(0, 4, (6,), device="cuda")
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model, x, y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.detach())
    return losses, [p.detach() for p in model.parameters()], scaler.get_scale()


def loss_of(model, x, y):
    with torch.autocast("cuda", dtype=torch.float16):
        return F.cross_entropy(model(x).float(), y)


def train_case():
    torch.manual_seed(0)
    base = TinyMLP().cuda()
    eager_model, compiled_model = copy.deepcopy(base), copy.deepcopy(base)
    counter = torch._dynamo.testing.CompileCounterWithBackend(BACKEND)
    compiled = torch.compile(loss_of, backend=counter, fullgraph=True)
    el, ep, es = train_steps(eager_model, loss_of)
    cl, cp, cs = train_steps(compiled_model, compiled)
    return {"losses_equal": all(same(a, b) for a, b in zip(el, cl)),
            "params_equal": all(same(a, b) for a, b in zip(ep, cp)),
            "scale_equal": es == cs, "graphs": counter.frame_count,
            "param_device": str(cp[0].device), "loss_dtype": str(cl[0].dtype)}


def record(name, fn, *args):
    torch._dynamo.reset()
    try:
        out[name] = fn(*args)
    except Exception as exc:
        lines = str(exc).strip().splitlines()
        out[name] = "FAIL %s: %s" % (type(exc).__name__, lines[0][:300] if lines else "")


settle_overrides()
torch.manual_seed(0)
decoder = TinyDecoder().cuda().eval()
with torch.no_grad():
    record("decode", decode_case, decoder)
    record("decode_graph", decode_graph_case, decoder)
    record("cudagraphs_backend", cudagraphs_backend_case, decoder)
record("train", train_case)
print(json.dumps(out, sort_keys=True))
