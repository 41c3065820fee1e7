"""Quantized tensors on the simulated device (musa_sim_quantized.cpp): a QTensorImpl over musa
storage with key QuantizedPrivateUse1, whose operators are torch_musa 2.7.1's
QuantizedPrivateUse1 rows (59 in the table) and nothing else.

What each test compares with (computed in the child on CPU tensors, independently of the
simulator's kernels):

* the same quantized computation on CPU tensors (QuantizedCPU), bit for bit (int_repr,
  q_scale, q_zero_point), where torch_musa's kernel and the CPU's agree: power-of-two scales,
  so every rounding is exact or a tie both round to even;
* a float64 reference of torch_musa's own formula (cited from its v2.7.1 source) where its
  kernel differs from the CPU's: the per-tensor quantize rounding, sigmoid's output
  parameters, add_relu's clamp, linear's qint8 activations;
* torch's own NotImplementedError for a QuantizedCPU operator the table does not register.
"""
import pytest

from tests._fresh import bare_sim_env, last_json, run_python

pytest.importorskip("torchada.testing.optable")

PRELUDE = r'''
import json, torch, torch_musa
torch.manual_seed(0)

def same(m, c):
    """A musa quantized tensor equals a CPU one: integers, parameters, scheme, dtype, shape."""
    if m.device.type != "musa" or c.device.type != "cpu" or not m.is_quantized:
        return False
    params = (lambda t: [t.q_scale(), t.q_zero_point()]) if c.qscheme() == torch.per_tensor_affine \
        else (lambda t: [t.q_per_channel_scales().cpu().tolist(),
                         t.q_per_channel_zero_points().cpu().tolist(), t.q_per_channel_axis()])
    return (m.dtype == c.dtype and m.qscheme() == c.qscheme() and m.shape == c.shape
            and params(m) == params(c) and torch.equal(m.int_repr().cpu(), c.int_repr()))

def agree(f, m, c):
    """True when f of the musa tensor equals f of the CPU one; the error's first line when
    both raise it; False otherwise."""
    results = []
    for t in (m, c):
        try:
            results.append(f(t))
        except Exception as exc:
            results.append("%s: %s" % (type(exc).__name__, str(exc).splitlines()[0]))
    if isinstance(results[0], str) or isinstance(results[1], str):
        return results[0] == results[1] and results[0]
    return same(*results)

def refused(call):
    try:
        call()
    except Exception as exc:
        return [type(exc).__name__, str(exc).splitlines()[0]]
    return "ran"
'''

PER_TENSOR = PRELUDE + r'''
x = torch.randn(3, 5, 7) * 20
x.view(-1)[:4] = torch.tensor([-1000.0, -500.0, 500.0, 1000.0])  # past both ends of every range
out = {}
for dtype, zp in ((torch.quint8, 3), (torch.qint8, -2)):
    for scale in (0.125, 0.5):
        qm = torch.quantize_per_tensor(x.to("musa"), scale, zp, dtype)
        qc = torch.quantize_per_tensor(x, scale, zp, dtype)
        ints = qc.int_repr()
        out["%s %s" % (dtype, scale)] = {
            "key": "QuantizedPrivateUse1" in str(torch._C._dispatch_keys(qm)),
            "same": same(qm, qc),
            "clamps": bool((ints == ints.max()).sum() > 1 and (ints == ints.min()).sum() > 1),
            "int_repr": [str(qm.int_repr().device), str(qm.int_repr().dtype)],
            "dequantize": torch.equal(qm.dequantize().cpu(), qc.dequantize()),
            "cpu": qm.cpu().device.type == "cpu" and torch.equal(qm.cpu().int_repr(), ints)
                   and qm.cpu().q_scale() == scale and qm.cpu().q_zero_point() == zp,
            "to_musa": same(qc.to("musa"), qc),
            "musa1": str(qm.to("musa:1").device) + " " + str(same(qm.to("musa:1"), qc)),
        }
# AffineQuantizer.mu:51 and 113: rn(float(x * (1.0f / scale))), the product in double; the
# CPU multiplies in float by a float inverse. -3.745 / 0.07 lands where the two differ.
v = torch.tensor([-3.745, 1.0, 2.5, -9.1])
source = torch.round((v.double() * (1.0 / 0.07)).float()).clamp(-128, 127).int()
out["rounding"] = {
    "musa": torch.quantize_per_tensor(v.to("musa"), 0.07, 0, torch.qint8).int_repr().cpu().tolist(),
    "source": source.tolist(),
    "cpu": torch.quantize_per_tensor(v, 0.07, 0, torch.qint8).int_repr().tolist(),
}
# AffineQuantizer.mu:115-141: qint8 and quint8 only; the CPU takes qint32
out["qint32"] = [refused(lambda: torch.quantize_per_tensor(x.to("musa"), 0.5, 0, torch.qint32)),
                 refused(lambda: torch.quantize_per_tensor(x, 0.5, 0, torch.qint32))]
# copies (Copy.cpp:336-362): float into quantized quantizes with the destination's parameters
# on the destination's device; quantized into quantized takes the source's quantizer
qm = torch.quantize_per_tensor(x.to("musa"), 0.5, 1, torch.quint8)
qc = torch.quantize_per_tensor(x, 0.5, 1, torch.quint8)
y = torch.randn(3, 5, 7) * 3
other_m = torch.quantize_per_tensor(y.to("musa"), 0.125, 7, torch.quint8)
other_c = torch.quantize_per_tensor(y, 0.125, 7, torch.quint8)
out["copy"] = {
    "float": same(qm.clone().copy_(y.to("musa")), qc.clone().copy_(y)),
    "quantized": same(qm.clone().copy_(other_m), qc.clone().copy_(other_c)),
    "from_cpu_float": refused(lambda: qm.clone().copy_(y)),
    "to_float": refused(lambda: y.to("musa").copy_(qm)),
}
print(json.dumps(out))
'''


def test_per_tensor_quantization_and_copies():
    out = last_json(run_python(PER_TENSOR, env=bare_sim_env()))
    for name in ("torch.quint8 0.125", "torch.quint8 0.5", "torch.qint8 0.125", "torch.qint8 0.5"):
        dtype = name.split()[0]
        underlying = "torch.uint8" if dtype == "torch.quint8" else "torch.int8"
        assert out[name] == {"key": True, "same": True, "clamps": True,
                             "int_repr": ["musa:0", underlying], "dequantize": True,
                             "cpu": True, "to_musa": True, "musa1": "musa:1 True"}, name
    rounding = out["rounding"]
    assert rounding["musa"] == rounding["source"]
    assert rounding["cpu"] != rounding["source"]  # the case tells the two formulas apart
    assert out["qint32"][0] == ["RuntimeError", "quantize_per_tensor now only supports qint8 and quint8"]
    assert out["qint32"][1] == "ran"
    copy = out["copy"]
    assert copy["float"] is True and copy["quantized"] is True
    # ATen's quantize checks one device for both sides (quantized_copy_from_float_)
    assert copy["from_cpu_float"][0] == "RuntimeError"
    assert "to be on the same device" in copy["from_cpu_float"][1]
    assert copy["to_float"] == ["RuntimeError", "Copying from quantized Tensor to non-quantized "
                                "Tensor is not allowed, please use dequantize to get a float "
                                "Tensor from a quantized Tensor"]


PER_CHANNEL = PRELUDE + r'''
x = torch.randn(3, 5, 4) * 10
scales = torch.tensor([0.125, 0.25, 0.5, 1.0, 0.0625])
out = {}
for dtype, zps in ((torch.qint8, [0, 1, -2, 3, -128]), (torch.quint8, [0, 10, 128, 255, 7]),
                   (torch.qint32, [0, 5, -5, 100, 1]), ("float qparams", [0.0, 1.0, 2.0, 3.0, 4.0])):
    zp = torch.tensor(zps)
    qdtype = torch.quint8 if dtype == "float qparams" else dtype
    pm = torch.quantize_per_channel(x.to("musa"), scales.to("musa"), zp.to("musa"), 1, qdtype)
    pc = torch.quantize_per_channel(x, scales, zp, 1, qdtype)
    out[str(dtype)] = {
        "scheme": str(pm.qscheme()),
        "same": same(pm, pc),
        "dequantize": torch.equal(pm.dequantize().cpu(), pc.dequantize()),
        "params on": [str(pm.q_per_channel_scales().device), str(pm.q_per_channel_zero_points().device)],
        "cpu": same(pm.cpu().to("musa"), pc) and str(pm.cpu().q_per_channel_scales().device),
        "to_musa": same(pc.to("musa"), pc) and str(pc.to("musa").q_per_channel_scales().device),
        # ATen refuses some views of per-channel tensors on either device (agree: the words)
        "unsqueeze": agree(lambda q: q.unsqueeze(0), pm, pc),
        "squeeze": agree(lambda q: q[:1].squeeze(0), pm, pc),
        "transpose": agree(lambda q: q.transpose(0, 2).contiguous(), pm, pc),
    }
# AffineQuantizer.mu:194-201: the kernel's iterator wants every tensor on the device
out["cpu scales"] = refused(lambda: torch.quantize_per_channel(
    x.to("musa"), scales, torch.zeros(5, dtype=torch.long), 1, torch.qint8))
# AffineQuantizer.mu:23-33: the device checks the zero points, with its own words
bad = torch.tensor([0, 0, 0, 0, 300])
out["zero point"] = [refused(lambda: torch.quantize_per_channel(
                         x.to("musa"), scales.to("musa"), bad.to("musa"), 1, torch.quint8)),
                     refused(lambda: torch.quantize_per_channel(x, scales, bad, 1, torch.quint8))]
print(json.dumps(out))
'''


def test_per_channel_quantization():
    out = last_json(run_python(PER_CHANNEL, env=bare_sim_env()))
    # ATen's as_strided refuses per-channel tensors (so does its squeeze for float qparams),
    # with the same words on both devices
    transposed = "RuntimeError: Setting strides is possible only on uniformly quantized tensor"
    expected = {"scheme": "torch.per_channel_affine", "same": True, "dequantize": True,
                "params on": ["musa:0", "musa:0"], "cpu": "cpu", "to_musa": "musa:0",
                "unsqueeze": True, "squeeze": True, "transpose": transposed}
    for name in ("torch.qint8", "torch.quint8", "torch.qint32"):
        assert out[name] == expected, name
    assert out["float qparams"] == dict(
        expected, scheme="torch.per_channel_affine_float_qparams",
        squeeze="RuntimeError: Setting strides is possible only on uniformly or per channel "
                "quantized tensors")
    assert out["cpu scales"] == ["RuntimeError", "Expected all tensors to be on the same device, "
                                 "but found at least two devices, musa:0 and cpu!"]
    assert out["zero point"][0] == ["RuntimeError", "quantize_tensor_per_channel_affine_musazero_point"
                                    " is above upper bound."]
    assert out["zero point"][1][0] == "RuntimeError"
    assert out["zero point"][1][1] != out["zero point"][0][1]  # the CPU words it otherwise


ROWS = PRELUDE + r'''
x = torch.randn(2, 3, 6, 6) * 4
qm = torch.quantize_per_tensor(x.to("musa"), 0.125, 3, torch.quint8)
qc = torch.quantize_per_tensor(x, 0.125, 3, torch.quint8)
sm = torch.quantize_per_tensor(x.to("musa"), 0.0625, 0, torch.qint8)  # zero point 0, qint8
sc = torch.quantize_per_tensor(x, 0.0625, 0, torch.qint8)
mask = x > 0.5
idx = torch.tensor([2, 0, 2])
F = torch.nn.functional
both = lambda f: same(f(qm), f(qc))
out = {
    "relu": both(torch.relu),
    "relu_": same(torch.relu_(qm.clone()), torch.relu_(qc.clone())),
    "gelu": both(F.gelu),
    "flip": both(lambda q: q.flip(1, 3)),
    "view": both(lambda q: q.view(6, 36)),
    "reshape": both(lambda q: q.reshape(2, -1)),
    "squeeze": both(lambda q: q[:1].squeeze()),
    "unsqueeze": both(lambda q: q.unsqueeze(2)),
    "unfold": both(lambda q: q.unfold(3, 2, 2)),
    "as_strided": both(lambda q: q.as_strided((3, 4), (2, 5), 1)),
    "transpose": both(lambda q: q.transpose(1, 3).contiguous()),
    "clone": both(lambda q: q.clone()),
    "channels_last": both(lambda q: q.contiguous(memory_format=torch.channels_last)),
    "int_repr": torch.equal(qm.int_repr().cpu(), qc.int_repr()),
    "index_select": same(qm.index_select(2, idx.to("musa")), qc.index_select(2, idx)),
    "masked_fill": same(qm.clone().masked_fill_(mask.to("musa"), 1.5),
                        qc.clone().masked_fill_(mask, 1.5)),
    "masked_fill tensor": same(qm.clone().masked_fill_(mask.to("musa"), torch.tensor(-0.25)),
                               qc.clone().masked_fill_(mask, torch.tensor(-0.25))),
    "max": same(qm.max(2)[0], qc.max(2)[0]) and torch.equal(qm.max(2)[1].cpu(), qc.max(2)[1]),
    "min": same(qm.min(1, keepdim=True)[0], qc.min(1, keepdim=True)[0]),
    "fill": same(qm.clone().fill_(0.75), qc.clone().fill_(0.75)),
    "upsample": both(lambda q: F.interpolate(q, scale_factor=2)),
    "adaptive_avg_pool2d": both(lambda q: F.adaptive_avg_pool2d(q, (3, 2))),
    "max_pool2d": same(F.max_pool2d(sm, 2), F.max_pool2d(sc, 2)),
    "cat": same(torch.cat([sm, sm[:, :1]], 1), torch.cat([sc, sc[:, :1]], 1)),
    "cat out": same(torch.cat([sm, sm], 0, out=torch.quantize_per_tensor(
                        torch.zeros(4, 3, 6, 6, device="musa"), 0.0625, 0, torch.qint8)),
                    torch.cat([sc, sc], 0)),
    "empty_like": torch.empty_like(qm).q_scale() == 0.125 and torch.empty_like(qm).is_quantized,
    "repr": "device='musa:0'" in repr(qm) and "scale=0.125" in repr(qm),
}
# Activation.mu:166-180: sigmoid keeps the input's scale and zero point (the CPU's takes
# 1/256, 0); each value is the source's formula, checked against a float64 reference far
# from any rounding boundary
ints = torch.tensor([0, 1, 2, 3, 5, 8, 13, 20, 40, 90, 200, 255], dtype=torch.uint8)
q = torch._make_per_tensor_quantized_tensor(ints.to("musa"), 0.125, 3)
y = torch.sigmoid(q)
v = 1.0 / (1.0 + torch.exp(-((ints.double() - 3) * 0.125)))
ref = v / 0.125 + 3
out["sigmoid"] = {
    "params": [y.q_scale(), y.q_zero_point()],
    "cpu params": [torch.sigmoid(qc).q_scale(), torch.sigmoid(qc).q_zero_point()],
    "values": y.int_repr().cpu().tolist() == torch.round(ref).clamp(0, 255).int().tolist(),
    "margin": bool(((ref - ref.floor() - 0.5).abs() > 1e-3).all()),
}
# per-channel refusals (Activation.mu:181-186, TensorShape.cpp:293-294, TensorCompare.cpp:14)
pm = torch.quantize_per_channel(x.to("musa"), torch.full((3,), 0.25, device="musa"),
                                torch.zeros(3, dtype=torch.long, device="musa"), 1, torch.quint8)
out["refused"] = {
    "relu per channel": refused(lambda: torch.relu(pm)),
    "cat zero point": refused(lambda: torch.cat([qm, qm])),
    "cat per channel": refused(lambda: torch.cat([pm, pm])),
    "max per channel": refused(lambda: pm.max(1)),
    "max_pool2d quint8": refused(lambda: F.max_pool2d(qm, 2)),
    "index_select cpu index": refused(lambda: qm.index_select(2, idx)),
}
print(json.dumps(out))
'''


ROW_NAMES = ("relu", "relu_", "gelu", "flip", "view", "reshape", "squeeze", "unsqueeze", "unfold",
             "as_strided", "transpose", "clone", "channels_last", "int_repr", "index_select",
             "masked_fill", "masked_fill tensor", "max", "min", "fill", "upsample",
             "adaptive_avg_pool2d", "max_pool2d", "cat", "cat out", "empty_like", "repr")


def test_table_rows_compute_as_the_cpu():
    out = last_json(run_python(ROWS, env=bare_sim_env()))
    sigmoid, refusals = out.pop("sigmoid"), out.pop("refused")
    assert out == {name: True for name in ROW_NAMES}
    assert sigmoid == {"params": [0.125, 3], "cpu params": [0.00390625, 0], "values": True,
                       "margin": True}
    assert refusals == {
        "relu per channel": ["RuntimeError", "we currently only support per-tensor quantized "
                             "relu, but got per_channel_affine"],
        "cat zero point": ["RuntimeError", "torch_musa only supports symmetric quantization"
                           "which requires zero_point == 0, got: 3"],
        "cat per channel": ["RuntimeError", "Only per-tensor quantization is supported in `cat`"],
        "max per channel": ["RuntimeError", "Max operator for quantized tensors only works for "
                            "per tensor quantized tensors. Please open an issue on "
                            "https://github.com/pytorch/pytorch/issues if you need per channel "
                            "quantized tensor support."],
        "max_pool2d quint8": ["RuntimeError", "MaxPool2dQuantized(): Expected dataype to be qint8, "
                              "got QUInt8"],
        "index_select cpu index": ["RuntimeError", "Index should be on GPU device"],
    }


ADD = PRELUDE + r'''
a = torch.randn(4, 9) * 5
b = torch.randn(4, 9) * 5
out = {}
for dtype, za, zb, zo in ((torch.quint8, 3, 130, 128), (torch.qint8, 0, -3, 2)):
    am, bm = (torch.quantize_per_tensor(t.to("musa"), s, z, dtype) for t, s, z in ((a, 0.125, za), (b, 0.25, zb)))
    ac, bc = (torch.quantize_per_tensor(t, s, z, dtype) for t, s, z in ((a, 0.125, za), (b, 0.25, zb)))
    out[str(dtype)] = {
        "quantized::add": same(torch.ops.quantized.add(am, bm, 0.25, zo),
                               torch.ops.quantized.add(ac, bc, 0.25, zo)),
        # mudnn/BinaryOps.cpp:11-27: aten::add.Tensor dequantizes and returns the float sum
        "add.Tensor": (am + bm).dtype == torch.float32 and (am + bm).device.type == "musa"
                      and torch.equal((am + bm).cpu(), ac.dequantize() + bc.dequantize()),
    }
# BinaryOps.mu:109-125: add_relu clamps the quantized value at 0, not at the zero point; at
# zero point 0 that is a ReLU (the CPU's result), at 128 in quint8 no clamp at all (the CPU's
# plain add, where the CPU's own add_relu clamps)
am, bm = (torch.quantize_per_tensor(t.to("musa"), 0.125, 0, torch.qint8) for t in (a, b))
ac, bc = (torch.quantize_per_tensor(t, 0.125, 0, torch.qint8) for t in (a, b))
out["add_relu zero point 0"] = same(torch.ops.quantized.add_relu(am, bm, 0.25, 0),
                                    torch.ops.quantized.add_relu(ac, bc, 0.25, 0))
am, bm = (torch.quantize_per_tensor(t.to("musa"), 0.125, 128, torch.quint8) for t in (a, b))
ac, bc = (torch.quantize_per_tensor(t, 0.125, 128, torch.quint8) for t in (a, b))
musa_relu = torch.ops.quantized.add_relu(am, bm, 0.25, 128)
out["add_relu zero point 128"] = {
    "is the plain add": same(musa_relu, torch.ops.quantized.add(ac, bc, 0.25, 128)),
    "cpu clamps": not torch.equal(torch.ops.quantized.add_relu(ac, bc, 0.25, 128).int_repr(),
                                  torch.ops.quantized.add(ac, bc, 0.25, 128).int_repr()),
}
out["alpha"] = refused(lambda: torch.add(am, bm, alpha=2))
out["empty"] = torch.ops.quantized.add(am[:0], bm[:0], 0.25, 0) is None
out["shapes"] = refused(lambda: torch.ops.quantized.add(am, bm[:2], 0.25, 0))
print(json.dumps(out))
'''


def test_add_rows():
    out = last_json(run_python(ADD, env=bare_sim_env()))
    for dtype in ("torch.quint8", "torch.qint8"):
        assert out[dtype] == {"quantized::add": True, "add.Tensor": True}, dtype
    assert out["add_relu zero point 0"] is True
    assert out["add_relu zero point 128"] == {"is the plain add": True, "cpu clamps": True}
    assert out["alpha"] == ["RuntimeError", "Quantized add don't support set alpha yet."]
    assert out["empty"] is True  # BinaryOps.mu:161-163: an undefined tensor
    assert out["shapes"] == ["RuntimeError", "quantized::add currently expects both input tensors "
                             "to be the same shape"]


# Integer operands and scales whose products are exact: the accumulator and the bias are on
# the grid of s_x * s_w, so any output scale that is a power of two times it rounds alike on
# both sides (ties to even). torch_musa's linear takes qint8 activations (Linear.cpp:80-85),
# the CPU engine quint8: the CPU runs the same real values at zero point 128.
PACKED = PRELUDE + r'''
xs, ws = 0.125, 0.0625
xi, wi = torch.randint(-3, 4, (6, 8)), torch.randint(-3, 4, (5, 8))
bias = torch.randint(-20, 21, (5,)) * (xs * ws)
X, W = xi * xs, wi * ws
xm = torch.quantize_per_tensor(X.to("musa"), xs, 0, torch.qint8)
xc = torch.quantize_per_tensor(X, xs, 128, torch.quint8)
wm = torch.quantize_per_tensor(W.to("musa"), ws, 0, torch.qint8)
wc = torch.quantize_per_tensor(W, ws, 0, torch.qint8)
pm = torch.ops.quantized.linear_prepack(wm, bias.to("musa"))
pc = torch.ops.quantized.linear_prepack(wc, bias)
shift = lambda m, c: m.is_quantized and m.device.type == "musa" and m.dtype == torch.qint8 and \
    torch.equal(m.int_repr().cpu().int(), c.int_repr().int() - 128)
out = {"linear": {}}
for k in (1, 2, 4):
    s = k * xs * ws
    out["linear"][str(k)] = [
        shift(torch.ops.quantized.linear(xm, pm, s, 0), torch.ops.quantized.linear(xc, pc, s, 128)),
        shift(torch.ops.quantized.linear_relu(xm, pm, s, 0),
              torch.ops.quantized.linear_relu(xc, pc, s, 128)),
        shift(torch.ops.quantized.linear(xm.view(2, 3, 8), pm, s, 0),
              torch.ops.quantized.linear(xc.view(2, 3, 8), pc, s, 128)),
    ]
w_back, b_back = pm.unpack()
out["unpack"] = [str(w_back.device), torch.equal(w_back.int_repr().cpu(), wc.int_repr()),
                 str(b_back.device), torch.equal(b_back.cpu(), bias)]
out["refused"] = {
    "weight quint8": refused(lambda: torch.ops.quantized.linear_prepack(
        torch.quantize_per_tensor(W.to("musa"), ws, 0, torch.quint8), None)),
    "weight zero point": refused(lambda: torch.ops.quantized.linear_prepack(
        torch.quantize_per_tensor(W.to("musa"), ws, 1, torch.qint8), None)),
    "activation quint8": refused(lambda: torch.ops.quantized.linear(
        torch.quantize_per_tensor(X.to("musa"), xs, 128, torch.quint8), pm, xs * ws, 0)),
    "cpu activation qint8": refused(lambda: torch.ops.quantized.linear(
        torch.quantize_per_tensor(X, xs, 0, torch.qint8), pc, xs * ws, 0)),
}
# conv2d: Conv.cpp:158-204 (NHWC qint8 output), the CPU engine with quint8 activations
ci, ki = torch.randint(-3, 4, (2, 3, 6, 5)), torch.randint(-2, 3, (4, 3, 3, 3))
cbias = torch.randint(-20, 21, (4,)) * (xs * ws)
cm = torch.quantize_per_tensor((ci * xs).to("musa"), xs, 0, torch.qint8)
cc = torch.quantize_per_tensor(ci * xs, xs, 128, torch.quint8)
km = torch.ops.quantized.conv2d_prepack(torch.quantize_per_tensor((ki * ws).to("musa"), ws, 0, torch.qint8),
                                        cbias.to("musa"), [1, 2], [1, 0], [1, 1], 1)
kc = torch.ops.quantized.conv2d_prepack(torch.quantize_per_tensor(ki * ws, ws, 0, torch.qint8),
                                        cbias, [1, 2], [1, 0], [1, 1], 1)
ym = torch.ops.quantized.conv2d(cm, km, xs * ws, 0)
out["conv2d"] = {
    "values": shift(ym, torch.ops.quantized.conv2d(cc, kc, xs * ws, 128)),
    "relu": shift(torch.ops.quantized.conv2d_relu(cm, km, 2 * xs * ws, 0),
                  torch.ops.quantized.conv2d_relu(cc, kc, 2 * xs * ws, 128)),
    "nhwc": ym.is_contiguous(memory_format=torch.channels_last),
    "unpack": torch.equal(km.unpack()[0].int_repr().cpu(), ki.to(torch.int8)),
}
# conv2d_add (ConvAdd.cpp): the accumulator added before requantizing
acc = torch.randint(-10, 11, tuple(ym.shape))
am = torch.quantize_per_tensor((acc * (xs * ws)).to("musa"), xs * ws, 0, torch.qint8)
added = torch.ops.quantized.conv2d_add(cm, am, km, xs * ws, 0)
out["conv2d_add"] = torch.equal(added.int_repr().cpu().int(),
                                (ym.int_repr().cpu().int() + acc.int()).clamp(-128, 127))
# conv1d: prepacked as 2-d (ConvPrepack.cpp:159-216); quantized::conv1d has no row
k1 = torch.ops.quantized.conv1d_prepack(torch.quantize_per_tensor((ki[:, :, 0] * ws).to("musa"), ws, 0,
                                        torch.qint8), None, [1], [0], [1], 1)
out["conv1d"] = refused(lambda: torch.ops.quantized.conv1d(cm[:, :, 0], k1, xs * ws, 0))
print(json.dumps(out))
'''


def test_packed_linear_and_conv():
    out = last_json(run_python(PACKED, env=bare_sim_env()))
    assert out["linear"] == {"1": [True] * 3, "2": [True] * 3, "4": [True] * 3}
    assert out["unpack"] == ["musa:0", True, "musa:0", True]
    assert out["refused"] == {
        "weight quint8": ["RuntimeError", "Quantized Linear only supports QInt8 dtype"],
        "weight zero point": ["RuntimeError", "Unsupported qscheme: per_tensor_affine"],
        "activation quint8": ["RuntimeError", "Expected input data dtype QInt8 but got QUInt8"],
        # the CPU engine refuses the card's activations: its packing is not the card's
        "cpu activation qint8": ["RuntimeError", "Expected input data type QUInt8 but got QInt8"],
    }
    assert out["conv2d"] == {"values": True, "relu": True, "nhwc": True, "unpack": True}
    assert out["conv2d_add"] is True
    assert out["conv1d"][0] == "NotImplementedError"
    assert out["conv1d"][1].startswith("Could not run 'quantized::conv1d' with arguments from "
                                       "the 'Quantizedmusa' backend.")


# QuantizedCPU has kernels for these; torch_musa 2.7.1 registers none for QuantizedPrivateUse1
# (leaky_relu is structured: torch's composite kernel for the functional form reaches the
# out= overload, and names it).
UNREGISTERED = PRELUDE + r'''
x = torch.randn(1, 3, 4, 4)
calls = {
    "hardtanh": lambda q: torch.nn.functional.hardtanh(q),
    "quantized_batch_norm": lambda q: torch.quantized_batch_norm(
        q, torch.ones(3, device=q.device), torch.zeros(3, device=q.device),
        torch.zeros(3, device=q.device), torch.ones(3, device=q.device), 1e-5, 0.5, 2),
    "leaky_relu": lambda q: torch.nn.functional.leaky_relu(q),
    "quantized::mul": lambda q: torch.ops.quantized.mul(q, q, 0.5, 0),
}
out = {}
for name, call in calls.items():
    cpu = torch.quantize_per_tensor(x, 0.125, 2, torch.quint8)
    out[name] = [refused(lambda: call(cpu.to("musa"))), refused(lambda: call(cpu))]
out["fallback"] = torch._C._dispatch_has_backend_fallback(torch._C.DispatchKey.QuantizedPrivateUse1)
print(json.dumps(out))
'''

REFUSED_OPS = {"hardtanh": "aten::hardtanh", "quantized_batch_norm": "aten::quantized_batch_norm",
               "leaky_relu": "aten::leaky_relu.out", "quantized::mul": "quantized::mul"}


def test_unregistered_quantized_ops_raise_torchs_error():
    out = last_json(run_python(UNREGISTERED, env=bare_sim_env()))
    assert out.pop("fallback") is False
    assert set(out) == set(REFUSED_OPS)
    for call, op in REFUSED_OPS.items():
        musa, cpu = out[call]
        assert cpu == "ran", call
        assert musa[0] == "NotImplementedError", (call, musa)
        assert musa[1].startswith("Could not run '%s' with arguments from the 'Quantizedmusa' "
                                  "backend." % op), (call, musa)


DIRECT = r'''
import json, torch, torch_musa
from torchada.testing import optable
table = optable.load(optable.table_for(torch_musa.__version__))
rows = optable.registered(table, "QuantizedPrivateUse1")
direct = set(torch._C._dispatch_get_registrations_for_dispatch_key("QuantizedPrivateUse1"))
def defined(name):
    try:
        torch._C._dispatch_find_schema_or_throw(*(name.split(".", 1) + [""])[:2])
        return True
    except RuntimeError:
        return False
print(json.dumps({"rows": len(rows), "extra": sorted(direct - rows),
                  "missing": sorted(rows - direct),
                  "missing_defined": sorted(n for n in rows - direct if defined(n))}))
'''


def test_the_simulators_quantized_kernels_are_the_table_rows():
    out = last_json(run_python(DIRECT, env=bare_sim_env()))
    # the simulated release's table (2.7.1's has 59 rows; a later table may add some)
    assert out.pop("rows") >= 59
    # every row has its kernel, but the two schemas of torch_musa's patched torch
    # (torch_patches/aten_src_ATen_native_quantized_library.cpp.patch), and no other
    assert out == {"extra": [],
                   "missing": ["quantized::conv2d_add_silu", "quantized::conv2d_silu.new"],
                   "missing_defined": []}
