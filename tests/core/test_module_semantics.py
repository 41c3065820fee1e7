"""With the finder active, imported modules look exactly as if it were not there."""

import subprocess
import sys

from tests._fresh import fake_musa_env, run_python


def test_spec_loader_reload_resources_pickle():
    proc = run_python("""
        import importlib, importlib.resources, io, pickle, sys
        import torch, torch.utils.cpp_extension as ce, torch.distributed
        assert any(type(f).__name__ == 'TorchadaFinder' for f in sys.meta_path)
        for name in ('torch', 'torch.utils.cpp_extension', 'torch.distributed'):
            m = sys.modules[name]
            assert type(m.__loader__).__name__ == 'SourceFileLoader', (name, m.__loader__)
            assert m.__spec__.loader is m.__loader__, name
            assert m.__spec__.name == name and m.__spec__.origin.endswith('.py')
        again = importlib.reload(ce)
        assert again is ce and type(ce.__loader__).__name__ == 'SourceFileLoader'
        assert importlib.resources.files('torch').joinpath('__init__.py').is_file()
        t = torch.arange(6.0).reshape(2, 3)
        buf = io.BytesIO(); torch.save({'t': t, 'd': torch.device('cpu')}, buf); buf.seek(0)
        back = torch.load(buf)
        assert torch.equal(back['t'], t) and back['d'] == torch.device('cpu')
        assert pickle.loads(pickle.dumps(torch.device('cpu'))) == torch.device('cpu')
        assert pickle.loads(pickle.dumps(torch.float16)) is torch.float16
        print('ok')
    """, env=fake_musa_env(TORCHADA_DISABLE_AREAS="*"))
    assert proc.stdout.strip() == "ok"


def test_collect_env_runs_under_activation():
    proc = subprocess.run([sys.executable, "-m", "torch.utils.collect_env"],
                          env=fake_musa_env(TORCHADA_DISABLE_AREAS="*"), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "PyTorch version: 2." in proc.stdout
