"""The graphs area (the torch.cuda table's graph rows) in-process over the manifest fake."""
import pytest
import torch


def test_graph_names_translate_keywords(applied):
    m = applied
    assert issubclass(torch.cuda.graph, m.graph)
    assert torch.cuda.graphs.graph is torch.cuda.graph
    assert issubclass(torch.cuda.CUDAGraph, m.MUSAGraph)
    g = torch.cuda.CUDAGraph()
    assert isinstance(g, m.MUSAGraph)
    ctx = torch.cuda.graph(cuda_graph=g)
    assert isinstance(ctx, m.graph)


@pytest.mark.parametrize("call, argument", [
    (lambda: torch.cuda.graph(object(), enable_annotations=True), "enable_annotations"),
    (lambda: torch.cuda.graph(object(), check_input_liveness=True), "check_input_liveness"),
    (lambda: torch.cuda.CUDAGraph(keep_graph=True), "keep_graph"),
    (lambda: torch.cuda.make_graphed_callables(lambda x: x, (), pool=(0, 1)), "pool"),
])
def test_cuda_only_graph_arguments_raise_naming_the_argument(applied, call, argument):
    with pytest.raises(NotImplementedError, match=argument) as info:
        call()
    assert "torch_musa 2.7.1" in str(info.value)


def test_graph_rows_belong_to_the_graphs_area_alone(fake_musa):
    """cuda_namespace alone leaves the graph names as torch defines them."""
    from torchada._core import area_run
    from torchada._core.journal import Journal
    from torchada.areas import cuda_namespace

    original = torch.cuda.CUDAGraph, torch.cuda.graph, torch.cuda.graphs.graph_pool_handle
    journal = Journal("cuda_namespace")
    area_run.run(cuda_namespace, journal)
    try:
        assert (torch.cuda.CUDAGraph, torch.cuda.graph,
                torch.cuda.graphs.graph_pool_handle) == original
    finally:
        journal.revert()
