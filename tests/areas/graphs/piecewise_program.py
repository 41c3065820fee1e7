"""A serving engine's piecewise CUDA graphs, unmodified CUDA code: LAYERS x SIZES graphs,
each one layer at one batch size, captured into a shared pool, then replayed in random
order; every output is checked against the same layer run eagerly on the CPU.
Prints one JSON line: {"captured": n, "mismatches": [...], "error": str or null}."""
import gc
import json
import os
import random
import sys

import torch

LAYERS = int(os.environ.get("PIECEWISE_LAYERS", "60"))
SIZES = int(os.environ.get("PIECEWISE_SIZES", "36"))
HIDDEN = 8


def layer_weights(layer):
    gen = torch.Generator().manual_seed(layer)
    return torch.randn(HIDDEN, HIDDEN, generator=gen), torch.randn(HIDDEN, generator=gen)


def main():
    weights = [layer_weights(i) for i in range(LAYERS)]
    device_weights = [(w.cuda(), b.cuda()) for w, b in weights]
    sizes = [1 + 2 * i for i in range(SIZES)]
    static_in = {n: torch.zeros(n, HIDDEN, device="cuda") for n in sizes}
    pool = torch.cuda.graph_pool_handle()
    stream = torch.cuda.Stream()
    graphs, error = {}, None
    # torch.cuda.graph() runs gc.collect() before every capture; serving engines warm up,
    # then freeze the heap so thousands of captures do not each scan it (SGLang's
    # freeze_gc, vLLM's patched gc.collect during capture).
    warmup = torch.cuda.CUDAGraph()
    with torch.cuda.graph(warmup, pool=pool, stream=stream):
        torch.relu(static_in[sizes[0]] @ device_weights[0][0])
    del warmup
    gc.freeze()
    try:
        with torch.cuda.stream(stream):
            for layer in range(LAYERS):
                w, b = device_weights[layer]
                for n in sizes:
                    graph = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(graph, pool=pool, stream=stream):
                        out = torch.relu(static_in[n] @ w + b)
                    graphs[layer, n] = (graph, out)
    except RuntimeError as exc:
        error = str(exc).splitlines()[0]
    mismatches = []
    if error is None:
        keys = list(graphs)
        random.Random(0).shuffle(keys)
        gen = torch.Generator().manual_seed(1234)
        for layer, n in keys:
            x = torch.randn(n, HIDDEN, generator=gen)
            static_in[n].copy_(x)
            graph, out = graphs[layer, n]
            graph.replay()
            w, b = weights[layer]
            if not torch.allclose(out.cpu(), torch.relu(x @ w + b), rtol=1e-5, atol=1e-6):
                mismatches.append([layer, n])
    print(json.dumps({"captured": len(graphs), "mismatches": mismatches, "error": error}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
