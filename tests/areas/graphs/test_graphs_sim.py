"""The graphs area on the simulated torch_musa: capture and replay through torch.cuda names."""
from tests._fresh import run_sim


def sim_stdout(code, **overrides):
    return run_sim(code, **overrides).stdout


def test_graph_capture_and_replay_with_cuda_names():
    sim_stdout("""
        x = torch.zeros(16, device="musa")
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            y = x * 2 + 1
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(cuda_graph=g):
            y = x * 2 + 1
        x.fill_(3.0)
        g.replay()
        torch.cuda.synchronize()
        assert torch.equal(y.cpu(), torch.full((16,), 7.0))
        assert isinstance(g, torch.musa.MUSAGraph)
        pool = torch.cuda.graph_pool_handle()
        g2 = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g2, pool=pool):
            z = x + 1
        g2.replay()
        assert torch.equal(z.cpu(), torch.full((16,), 4.0))
        try:
            torch.cuda.graph(g, enable_annotations=True)
        except NotImplementedError as e:
            assert "enable_annotations" in str(e)
        else:
            raise AssertionError("no error")
        model = torch.nn.Linear(4, 4).to("musa")
        graphed = torch.cuda.make_graphed_callables(model, (torch.randn(2, 4, device="musa"),))
        out = graphed(torch.randn(2, 4, device="musa"))
        assert out.shape == (2, 4)
    """)
