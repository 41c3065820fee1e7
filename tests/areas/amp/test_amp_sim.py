"""The amp area on the simulated torch_musa: autocast dtypes and GradScaler steps through CUDA names."""
from tests._fresh import run_sim


def sim_stdout(code, **overrides):
    return run_sim(code, **overrides).stdout


def test_amp_autocast_dtype_and_grad_scaler_step():
    sim_stdout("""
        a = torch.randn(8, 8, device="musa")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            assert torch.is_autocast_enabled("cuda")
            assert torch.get_autocast_dtype("cuda") == torch.bfloat16
            assert torch.mm(a, a).dtype == torch.bfloat16
        with torch.amp.autocast(device_type="cuda"):
            assert torch.get_autocast_dtype("cuda") == torch.float16
        with torch.cuda.amp.autocast():
            assert torch.is_autocast_enabled("cuda")
        assert not torch.is_autocast_enabled("cuda")
        assert torch.cuda.amp.GradScaler is torch.musa.amp.GradScaler
        model = torch.nn.Linear(8, 1).to("musa")
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        before = model.weight.detach().clone()
        for scaler in (torch.amp.GradScaler("cuda"), torch.amp.GradScaler(),
                       torch.cuda.amp.GradScaler()):
            assert scaler._device == "musa" and scaler.is_enabled()
        # a small initial scale: fp16 gradients must not overflow on every step
        scaler = torch.amp.GradScaler("cuda", init_scale=256.0)
        for _ in range(4):
            with torch.autocast("cuda"):
                loss = model(a).float().pow(2).mean()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
        assert scaler.get_scale() > 0
        assert not torch.equal(before.cpu(), model.weight.detach().cpu())

        @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
        def fwd(x):
            return x.dtype
        with torch.autocast("cuda"):
            assert fwd(a.half()) == torch.float32
    """)
