"""The backends area on the simulated torch_musa."""
from tests._fresh import run_sim


def sim_stdout(code, **overrides):
    return run_sim(code, **overrides).stdout


def test_backends_on_the_simulator():
    sim_stdout("""
        assert torch.backends.cuda.is_built()
        # torch_musa registers torch.backends.mudnn at import (the simulator models it)
        assert hasattr(torch.backends, "mudnn")
        assert torch.backends.cudnn.is_available()
        torch.backends.cuda.matmul.allow_tf32 = False
        assert torch.backends.mudnn.allow_tf32 is False
        assert torch.backends.cudnn.allow_tf32 is False
        torch.backends.cudnn.allow_tf32 = True
        assert torch.backends.mudnn.allow_tf32 is True
        with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):
            assert torch.backends.mudnn.allow_tf32 is False
        assert torch.backends.mudnn.allow_tf32 is True
    """)
