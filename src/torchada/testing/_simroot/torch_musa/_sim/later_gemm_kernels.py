"""2.9.1.post1's int4-packed, grouped and mixed-dtype GEMMs and the RMSNorm backward.

torch_musa's ``musa_functions.yaml`` at 5e25af7 dispatches these five PrivateUse1 rows to its
own kernels (yaml lines 5683, 5689, 3221, 5743, 736). The source index read stores the files
below at commit b2ff86f, whose order relative to 5e25af7 is unknown (the index gives none):
that they are 5e25af7's is assumed (unknown), as ``docs/simulator.md`` assumes for the yaml.

* ``_convert_weight_to_int4pack``: torch_musa ``csrc/aten/ops/musa/int4mm.mu``
  ``_ConvertWeight_to_Int4packMusa`` / ``matrix_to_m16n8k16_Bint4_layout`` (read). Input
  ``[n][k / 2]`` uint8, two int4 per byte, the even k in the high nibble (CUDA's contract since
  torch 2.5); output int32 ``[ceil(n / 8)][k / (innerKTiles * 16)][32][innerKTiles / 2]``.
  Every int32 holds, for lane ``t`` (row ``8 * ntile + t // 4``), the four bytes at k-byte
  offsets ``t % 4``, ``+4``, ``+8``, ``+12`` of its k-tile pair: their high nibbles in bits
  0-15, their low nibbles in bits 16-31 (the bit layout the kernel writes). Rows past ``n``
  are zero.
* ``_weight_int4pack_mm``: same file, ``_WeightInt4packMmMusa`` / ``BLayout_TC_int4::load``
  (read). Undoes the packing above (the pair agrees exactly; which k the card's MMA fragment
  gives each nibble slot: unknown, only the packed bits are modelled) and dequantizes each
  nibble as MUSA's ``convert_i4x8_to_bf16x2x4`` does: as a two's-complement int4 in [-8, 7],
  ``w = bf16(q * scale + zero)`` with ``scale, zero = qScaleAndZeros[k // qGroupSize][n]``.
  CUDA's ``int4mm.cu`` reads the nibble as ``q - 8`` instead, so for the same packed bytes the
  two differ by ``8 * scale`` (a nibble with the top bit set reads 16 lower on MUSA): a
  gpt-fast / torchao weight (nibbles in [0, 15], zero = min + 8 * scale) gets different
  numbers here than on CUDA. The GEMM: bf16 activations, float32 accumulation (the card's
  order of summation: unknown), bf16 output. The checks are the kernel's (its messages are
  the conditions' text); two are the simulator's own where the card would read out of bounds
  (``qScaleAndZeros`` dtype and group count: the card's result there is unknown).
* ``_scaled_grouped_mm``: torch_musa ``csrc/aten/ops/GroupedMatmul.cpp`` ``ScaledGroupedMM``
  (read): float8 ``mat_a`` row-major, ``mat_b`` column-major, K and mat_b's dims multiples of
  16, float32 scales, bfloat16 output only, no bias or ``scale_result``; groups split as
  ``BuildGroupedMatmulSlices`` splits them (2d x 3d by rows, 3d x 2d by columns, 2d x 2d by K,
  3d x 3d batched) and scales sliced as ``GetScaleSlice`` does (one element: whole; 1-D: the
  group's rows / columns; 2-D: the group's row). ``out = (A @ B) * sa[:, None] * sb[None, :]``
  in float32, written in bfloat16 (where muDNN applies the scales: unknown). A 1-D scale
  where the group index selects it makes the card slice ``[-1:-1]`` (empty): the simulator
  refuses it (the card's result: unknown). ``getMUSAArch() >= 310`` is not checked (the
  simulated card passes it). Output rows past the last offset are zero (on the card: unset).
* ``_mixed_dtypes_linear``: torch_musa ``csrc/aten/ops/musa/MixedTypesLinear.mu``
  ``MixedTypesLinear`` and ``torch_musa/core/ao/_quantized_conversions.py``
  ``prepack_int4_weight_for_mixed_dtypes_linear`` / ``prepack_scale_for_mixed_dtypes_linear``
  (read). MUSA's contract is not CUDA's: int4 weights only (W4A16), prepacked as uint8
  ``(K, N / 2)`` holding tiles ``[N / 256][K / 128][256][64]`` (low nibble the even k, high
  the odd k, two's complement), scale float32 ``(K / group, N)``, N a multiple of 256 and K of
  128. ``out = act(input @ (q * scale[k // group]) + bias)`` in float32, written in the input's
  dtype; activation none / relu / silu. A weight reordered the CUDA way (PyTorch's test passes
  ``quantized_weight_reorder_for_mixed_dtypes_linear_cutlass(weight)`` and a 1-D fp16 / bf16
  scale) is refused by MUSA's checks, as here. The simulator also checks the weight's shape
  (the card reads whatever is there).
* ``_fused_rms_norm_backward``: MUSA's kernel: not read (the stored ``RMSNorm.cpp`` versions
  have only the older ``FusedRMSNormBackward(grad_out, invvar, input, normalized_shape, eps,
  weight)`` for torch_musa's own ``_fused_rmsnorm_backward``; the 5e25af7 one with torch's
  schema is not in the index). CUDA's contract followed (``layer_norm_kernel.cu`` RMSNorm
  backward, the composite ``rms_norm``'s autograd formula): with ``x_hat = x * rstd``,
  ``dx = rstd * (w * dy - x_hat * mean(w * dy * x_hat))`` and ``dw = sum(dy * x_hat)`` over the
  leading dims, in float32 for half / bfloat16, written in input / weight dtype; an output
  whose ``output_mask`` entry is false (or ``dw`` without a weight) is undefined. muDNN's
  order of reduction: unknown.

Registered by ``later_kernels.install`` where the release's table registers the row and this
torch (2.9 to 2.13: the five schemas are the same) has no CPU kernel for it.
"""
import torch

from torch_musa._sim.cuda_kernels import _acc

_CPP_NAMES = {
    torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
    torch.bfloat16: "BFloat16", torch.uint8: "Byte", torch.int8: "Char", torch.int16: "Short",
    torch.int32: "Int", torch.int64: "Long", torch.bool: "Bool",
}
_FLOAT8 = tuple(getattr(torch, n) for n in (
    "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz", "float8_e8m0fnu")
    if hasattr(torch, n))


def _name(dtype):
    """A dtype as c10 prints a ScalarType."""
    if dtype in _CPP_NAMES:
        return _CPP_NAMES[dtype]
    return str(dtype).replace("torch.float8_", "Float8_")


def _expect(cond, text):
    """TORCH_CHECK without a message: c10 names the failed condition."""
    torch._check(bool(cond), lambda: "Expected %s to be true, but got false." % text)


def _sizes(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _to_int32(words):
    # int64 holding 32-bit patterns -> the int32 with the same bits
    return torch.where(words >= 2 ** 31, words - 2 ** 32, words).to(torch.int32)


# ---------------------------------------------------------------- int4 tile packing


def convert_weight_to_int4pack(self, innerKTiles):
    _expect(self.dim() == 2, "in.dim() == 2")
    _expect(self.dtype == torch.uint8, "in.dtype() == at::kByte")
    _expect(self.is_contiguous(), "in.is_contiguous()")
    _expect(innerKTiles in (2, 4, 8), "innerKTiles == 2 || innerKTiles == 4 || innerKTiles == 8")
    n, k = self.size(0), self.size(1) * 2
    per = innerKTiles * 16
    _expect(k % per == 0 and k // per >= 1,
            "isEvenDivisor(in.size(1) * 2, innerKTiles * kKTileSize)")
    ntiles, ksuper, half = -(-n // 8), k // per, innerKTiles // 2
    rows = torch.zeros((ntiles * 8, k // 2), dtype=torch.int64, device=self.device)
    rows[:n] = self.to(torch.int64)
    # byte offset in a k-super-tile: j * 16 + h * 8 + p * 4 + c; lane t = 4 * r + c
    v = rows.view(ntiles, 8, ksuper, half, 2, 2, 4).permute(0, 2, 1, 6, 3, 4, 5)
    v = v.reshape(ntiles, ksuper, 32, half, 4)  # last: v0..v3 = (h, p) = 00, 01, 10, 11
    shift = torch.arange(4, device=self.device, dtype=torch.int64) * 4
    words = (((v >> 4) & 0xF) << shift).sum(-1) + ((v & 0xF) << (shift + 16)).sum(-1)
    return _to_int32(words).contiguous()


def _unpack_int4_tiles(packed):
    """[ntiles][ksuper][32][j] int32 -> [ntiles * 8][k / 2] bytes (int64), convert's inverse."""
    ntiles, ksuper, _, half = packed.shape
    words = packed.to(torch.int64) & 0xFFFFFFFF
    shift = torch.arange(4, device=packed.device, dtype=torch.int64) * 4
    w = words.unsqueeze(-1)
    v = (((w >> shift) & 0xF) << 4) | ((w >> (shift + 16)) & 0xF)  # [.., j, 4]
    v = v.view(ntiles, ksuper, 8, 4, half, 2, 2).permute(0, 2, 1, 4, 5, 6, 3)
    return v.reshape(ntiles * 8, ksuper * half * 16)


def weight_int4pack_mm(self, mat2, qGroupSize, qScaleAndZeros):
    A, B, qsz = self, mat2, qScaleAndZeros
    _expect(A.device == B.device and A.device == qsz.device,
            "A.device() == B.device() && A.device() == qScaleAndZeros.device()")
    _expect(A.dtype == torch.bfloat16, "A.dtype() == at::kBFloat16")
    _expect(A.is_contiguous(), "A.is_contiguous()")
    _expect(A.dim() == 2, "A.dim() == 2")
    _expect(B.dtype == torch.int32, "B.dtype() == at::kInt")
    _expect(B.is_contiguous(), "B.is_contiguous()")
    _expect(B.dim() == 4, "B.dim() == 4")
    inner = B.size(3) * 2
    _expect(inner in (2, 4, 8), "B_innerKTiles == 2 || B_innerKTiles == 4 || B_innerKTiles == 8")
    m, k, n = A.size(0), A.size(1), B.size(0) * 8
    ktiles = -(-k // 16)
    _expect(B.size(1) == k // (inner * 16), "B.size(1) == k / (B_innerKTiles * kKTileSize)")
    _expect(B.size(2) == 32, "B.size(2) == 32")
    _expect(qGroupSize in (32, 64, 128, 256),
            "qGroupSize == 32 || qGroupSize == 64 || qGroupSize == 128 || qGroupSize == 256")
    _expect(qsz.dim() == 3, "qScaleAndZeros.dim() == 3")
    _expect(ktiles * 16 >= qGroupSize and (ktiles * 16) % qGroupSize == 0,
            "kTiles * kKTileSize >= qGroupSize && isEvenDivisor(kTiles * kKTileSize, qGroupSize)")
    _expect(qsz.size(1) == n, "qScaleAndZeros.size(1) == n")
    _expect(qsz.size(2) == 2, "qScaleAndZeros.size(2) == 2")
    _expect(k % 16 == 0 and ktiles >= inner and ktiles % inner == 0,
            "kTiles >= BLayout::kInnerKTiles && isEvenDivisor(kTiles, BLayout::kInnerKTiles)")
    # the simulator's own: the card reads these bytes as bf16 / past the end (unknown result)
    torch._check(qsz.dtype == torch.bfloat16, lambda: (
        "_weight_int4pack_mm: qScaleAndZeros must be bfloat16 (the kernel reads it as "
        "bfloat16), got %s" % _name(qsz.dtype)))
    torch._check(qsz.size(0) * qGroupSize >= k, lambda: (
        "_weight_int4pack_mm: qScaleAndZeros has %d groups of %d, fewer than k = %d needs"
        % (qsz.size(0), qGroupSize, k)))
    byts = _unpack_int4_tiles(B)
    q = torch.stack((byts >> 4, byts & 0xF), dim=-1).reshape(n, k)  # even k: high nibble
    q = torch.where(q >= 8, q - 16, q).to(torch.float32)  # two's complement, as MUSA reads it
    group = torch.arange(k, device=A.device) // qGroupSize
    sz = qsz.to(torch.float32)[group]  # [k, n, 2]
    w = (q.t() * sz[..., 0] + sz[..., 1]).to(torch.bfloat16)  # [k, n], bf16 as the card's fma
    return (A.to(torch.float32) @ w.to(torch.float32)).to(torch.bfloat16)


# ---------------------------------------------------------------- grouped fp8 GEMM


def _transposed(mat, name):
    """Column-major (True) or row-major (False) in its last two dims, else refused."""
    st, sz = mat.stride(), mat.shape
    if st[-2] == 1 and st[-1] >= max(1, sz[-2]):
        return True
    if st[-1] == 1 and st[-2] >= max(1, sz[-1]):
        return False
    raise RuntimeError("Invalid strides/sizes, got %s for strides and %s for sizes"
                       % (list(st), list(sz)))


def _scale_slice(scale, group, start, end, name):
    # GetScaleSlice: the caller passes group -1 where the scale is sliced by rows / columns
    # and start / end -1 where it is picked by group (a 2-D scale then gives its last row)
    if scale.numel() == 1:
        return scale.reshape(1)
    if scale.dim() == 1:
        torch._check(start >= 0, lambda: (
            "%s: a 1-D scale indexed by group is sliced empty on MUSA (unknown result); "
            "pass it 2-D (groups, rows)" % name))
        return scale[start:end]
    torch._check(scale.dim() == 2, lambda: (
        "%s must be 1D or 2D for grouped matmul, but got %dD" % (name, scale.dim())))
    return scale[group]


def scaled_grouped_mm(self, mat2, scale_a, scale_b, offs=None, bias=None, scale_result=None,
                      out_dtype=None, use_fast_accum=False):
    a, b = self, mat2
    torch._check(a.dim() in (2, 3), lambda: "mat_a has to be 2 or 3d")
    torch._check(b.dim() in (2, 3), lambda: "mat_b has to be 2 or 3d")
    torch._check(not _transposed(a, "mat_a"), lambda: "Expected mat1 to not be transposed")
    torch._check(_transposed(b, "mat_b"), lambda: "Expected mat2 to be transposed")
    a2, b2 = a.dim() == 2, b.dim() == 2
    if not (a2 and b2):
        torch._check(a.size(-1) == b.size(-2),
                     lambda: "contraction dimension of mat_a and mat_b must match")
    torch._check(a.size(-1) % 16 == 0, lambda: (
        "Expected trailing dimension of mat_a to be divisible by 16 but got mat1 shape: (%s)."
        % _sizes(a)))
    torch._check(b.size(-2) % 16 == 0 and b.size(-1) % 16 == 0, lambda: (
        "Expected mat_b shape to be divisible by 16 but got mat_b shape: (%s)." % _sizes(b)))
    torch._check(bias is None, lambda: "Bias not supported yet")
    torch._check(scale_result is None, lambda: "Scale result not supported yet")
    torch._check((offs is not None) == (a2 or b2),
                 lambda: "Have to provide offsets if there is a 2d matrix")
    if offs is not None:
        torch._check(offs.dim() == 1, lambda: "offs has to be 1D")
        torch._check(offs.dtype == torch.int32, lambda: "Offsets have to be int32")
    torch._check(scale_a.dtype == torch.float32 and scale_b.dtype == torch.float32, lambda: (
        "For MUSA grouped scaled gemm, both scales must be float32 tensors."))
    torch._check(a.dtype in _FLOAT8,
                 lambda: "Expected mat_a to be Float8 matrix got %s" % _name(a.dtype))
    torch._check(b.dtype in _FLOAT8,
                 lambda: "Expected mat_b to be Float8 matrix got %s" % _name(b.dtype))
    out_dtype = torch.bfloat16 if out_dtype is None else out_dtype
    torch._check(out_dtype == torch.bfloat16, lambda: (
        "Only bf16 high precision output types are supported for grouped gemm"))
    if a2 and b2:
        shape, groups = (offs.size(0), a.size(0), b.size(1)), offs.size(0)
    elif a2:
        shape, groups = (a.size(0), b.size(-1)), b.size(0)
    elif b2:
        shape, groups = (a.size(1), b.size(1)), a.size(0)
    else:
        shape, groups = (a.size(0), a.size(1), b.size(-1)), a.size(0)
    out = torch.zeros(shape, dtype=torch.float32, device=a.device)
    ends = offs.tolist() if offs is not None else []
    start = 0
    for g in range(groups):
        if not a2 and not b2:
            sa = _scale_slice(scale_a, g, -1, -1, "scale_a")
            sb = _scale_slice(scale_b, g, -1, -1, "scale_b")
            ga, gb, dst = a[g], b[g], (g,)
        else:
            end = ends[g]
            if a2 and not b2:
                ga, gb, dst = a[start:end], b[g], (slice(start, end),)
                sa = _scale_slice(scale_a, -1, start, end, "scale_a")
                sb = _scale_slice(scale_b, g, -1, -1, "scale_b")
            elif b2 and not a2:
                ga, gb, dst = a[g], b[:, start:end], (slice(None), slice(start, end))
                sa = _scale_slice(scale_a, g, -1, -1, "scale_a")
                sb = _scale_slice(scale_b, -1, start, end, "scale_b")
            else:
                ga, gb, dst = a[:, start:end], b[start:end], (g,)
                m, n = a.size(0), b.size(1)
                sa = _scale_slice(scale_a, -1, g * m, (g + 1) * m, "scale_a")
                sb = _scale_slice(scale_b, -1, g * n, (g + 1) * n, "scale_b")
            start = end
        prod = ga.to(torch.float32) @ gb.to(torch.float32)
        out[dst] = prod * sa.to(torch.float32).reshape(-1, 1) * sb.to(torch.float32).reshape(1, -1)
    return out.to(torch.bfloat16)


# ---------------------------------------------------------------- W4A16 linear


def mixed_dtypes_linear(input, weight, scale, *, bias=None, activation=None):
    act = "none" if activation is None else activation
    torch._check(input.dtype in (torch.float16, torch.bfloat16), lambda: (
        "_mixed_dtypes_linear: The input datatype %s is not supported" % _name(input.dtype)))
    torch._check(weight.dtype == torch.uint8, lambda: (
        "_mixed_dtypes_linear: The weight datatype %s is not supported" % _name(weight.dtype)))
    torch._check(scale.dtype == torch.float32, lambda: (
        "_mixed_dtypes_linear: Expected scale datatype Float , but got %s" % _name(scale.dtype)))
    if bias is not None:
        torch._check(bias.dtype == input.dtype, lambda: (
            "_mixed_dtypes_linear: Expected bias datatype %s but got %s"
            % (_name(input.dtype), _name(bias.dtype))))
    x = input.reshape(-1, input.size(-1))
    torch._check(x.stride(0) > 1 and x.stride(1) == 1, lambda: (
        "_mixed_dtypes_linear: Invalid strides for input: row stride = %d, column stride = %d"
        % (x.stride(0), x.stride(1))))
    torch._check(weight.is_contiguous(),
                 lambda: "_mixed_dtypes_linear: Expected weight to be contiguous")
    torch._check(weight.dim() == 2, lambda: (
        "_mixed_dtypes_linear: Expected pre-packed 2D weight, got %d-D. "
        "Use prepack_int4_weight_for_mixed_dtypes_linear()." % weight.dim()))
    torch._check(scale.dim() == 2, lambda: (
        "_mixed_dtypes_linear: Expected pre-packed 2D scale, got %d-D. "
        "Use prepack_scale_for_mixed_dtypes_linear()." % scale.dim()))
    if bias is not None:
        torch._check(bias.dim() == 1, lambda: (
            "_mixed_dtypes_linear: Expected bias to be 1D, got %d dims" % bias.dim()))
    m, k, n = x.size(0), x.size(1), scale.size(1)
    if bias is not None:
        torch._check(bias.size(0) == n, lambda: (
            "_mixed_dtypes_linear: Expected bias to have %d elements, but got %d"
            % (n, bias.size(0))))
    scale_k = scale.size(0)
    torch._check(scale.is_contiguous(),
                 lambda: "_mixed_dtypes_linear: Expected scale to be contiguous")
    torch._check(scale_k > 0 and k % scale_k == 0, lambda: (
        "_mixed_dtypes_linear: K (%d) must be divisible by scale_k (%d)" % (k, scale_k)))
    torch._check(n % 256 == 0, lambda: (
        "_mixed_dtypes_linear: N (%d) must be a multiple of 256 (BlockN of the W4A16 kernel)"
        % n))
    torch._check(k % 128 == 0, lambda: (
        "_mixed_dtypes_linear: K (%d) must be a multiple of 128 (BlockK of the W4A16 kernel)"
        % k))
    # the simulator's own: the card reads K * N / 2 bytes from wherever the weight is
    torch._check(tuple(weight.shape) == (k, n // 2), lambda: (
        "_mixed_dtypes_linear: Expected pre-packed weight of shape [%d, %d], but got %s"
        % (k, n // 2, _sizes(weight))))
    torch._check(act in ("none", "relu", "silu"), lambda: (
        '_mixed_dtypes_linear: Activation "%s" is not supported. Supported: none, relu, silu'
        % act))
    # tiles [N / 256][K / 128][256][64]: low nibble k = 2 * kb, high nibble 2 * kb + 1
    t = weight.to(torch.int64).view(n // 256, k // 128, 256, 64)
    q = torch.stack((t & 0xF, t >> 4), dim=-1).reshape(n // 256, k // 128, 256, 128)
    q = q.permute(1, 3, 0, 2).reshape(k, n)
    q = torch.where(q >= 8, q - 16, q).to(torch.float32)
    w = q * scale[torch.arange(k, device=scale.device) // (k // scale_k)]
    y = x.to(torch.float32) @ w
    if bias is not None:
        y = y + bias.to(torch.float32)
    if act == "relu":
        y = torch.relu(y)
    elif act == "silu":
        y = torch.nn.functional.silu(y)
    return y.to(input.dtype).reshape(tuple(input.shape[:-1]) + (n,))


# ---------------------------------------------------------------- RMSNorm backward


def fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight, output_mask):
    shape = list(normalized_shape)
    nd = len(shape)
    torch._check(nd >= 1, lambda: (
        "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
        "one element, but got normalized_shape = %s" % shape))
    torch._check(weight is None or list(weight.shape) == shape, lambda: (
        "Expected weight to be of same shape as normalized_shape, but got weight of shape "
        "%s and normalized_shape = %s" % (_sizes(weight), shape)))
    torch._check(input.dim() >= nd and list(input.shape[input.dim() - nd:]) == shape, lambda: (
        "Given normalized_shape=%s, expected input with shape [*, %s], but got input of "
        "size%s" % (shape, ", ".join(str(s) for s in shape), _sizes(input))))
    torch._check(grad_out.shape == input.shape, lambda: (
        "Expected grad_out to be of same shape as input, but got grad_out of shape %s and "
        "input of shape %s" % (_sizes(grad_out), _sizes(input))))
    n = 1
    for s in shape:
        n *= s
    m = input.numel() // n if n else 0
    torch._check(rstd.numel() == m, lambda: (
        "Expected rstd to have %d elements (one per normalized row), but got %s"
        % (m, _sizes(rstd))))
    acc = _acc(input.dtype)
    x = input.reshape(m, n).to(acc)
    dy = grad_out.reshape(m, n).to(acc)
    r = rstd.reshape(m, 1).to(acc)
    xhat = x * r
    dx = dw = None
    if output_mask[0]:
        wdy = dy * weight.reshape(1, n).to(acc) if weight is not None else dy
        dx = r * (wdy - xhat * (wdy * xhat).mean(dim=1, keepdim=True))
        dx = dx.to(input.dtype).reshape(input.shape)
    if output_mask[1] and weight is not None:
        dw = (dy * xhat).sum(dim=0).to(weight.dtype).reshape(weight.shape)
    return dx, dw


KERNELS = {
    "_convert_weight_to_int4pack": convert_weight_to_int4pack,
    "_weight_int4pack_mm": weight_int4pack_mm,
    "_scaled_grouped_mm": scaled_grouped_mm,
    "_mixed_dtypes_linear": mixed_dtypes_linear,
    "_fused_rms_norm_backward": fused_rms_norm_backward,
}
