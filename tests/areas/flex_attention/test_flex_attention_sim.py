"""The flex_attention area on the simulated torch_musa: eager FlexAttention on musa tensors
with score_mod and block_mask, forward and backward, against a CPU reference."""
import json

from tests._fresh import run_sim

CODE = """
import json
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

torch.manual_seed(0)
B, H, L, D = 1, 2, 128, 16
q, k, v = (torch.randn(B, H, L, D) for _ in range(3))
grad = torch.randn(B, H, L, D)

def causal(b, h, qi, ki):
    return qi >= ki

def score_mod(s, b, h, qi, ki):
    return s + (qi - ki) * 0.01

# reference: the same attention written out, on the CPU, with autograd
qr, kr, vr = (t.clone().requires_grad_() for t in (q, k, v))
i = torch.arange(L)
scores = qr @ kr.transpose(-1, -2) / D ** 0.5 + (i[:, None] - i[None, :]) * 0.01
scores = scores.masked_fill(~(i[:, None] >= i[None, :]), float("-inf"))
ref = torch.softmax(scores, -1) @ vr
ref.backward(grad)

qm, km, vm = (t.cuda().requires_grad_() for t in (q, k, v))
mask = create_block_mask(causal, B, 1, L, L, device="cuda")
out = flex_attention(qm, km, vm, score_mod=score_mod, block_mask=mask)
out.backward(grad.cuda())
torch.testing.assert_close(out.detach().cpu(), ref.detach())
for mine, theirs in ((qm, qr), (km, kr), (vm, vr)):
    torch.testing.assert_close(mine.grad.cpu(), theirs.grad)
print(json.dumps({"device": str(out.device), "mask_device": str(mask.kv_num_blocks.device)}))
"""


def test_eager_flex_attention_matches_the_cpu_reference():
    proc = run_sim(CODE)
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"device": "musa:0",
                                                               "mask_device": "musa:0"}


def test_without_the_area_torch_refuses_musa():
    proc = run_sim(CODE, check=False, TORCHADA_DISABLE_AREAS="flex_attention")
    assert proc.returncode != 0
    assert "FlexAttention is only supported on" in proc.stderr
