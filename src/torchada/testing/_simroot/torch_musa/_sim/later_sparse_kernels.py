"""2.9.1.post1's semi-structured (2:4) sparsity and cuSPARSELt kernels.

torch_musa 5e25af7's ``musa_functions.yaml`` (lines 5562-5574, 5701-5737) dispatches these
rows to PyTorch's CUDA function names, so the card runs PyTorch's CUDA sources compiled for
MUSA. Each function below follows that source's arithmetic and layouts
(``aten/src/ATen/native/sparse/cuda/``); what the MUSA build does differently is unknown
unless said otherwise. Index work runs on host copies (as CUDA's own
``_to_sparse_semi_structured`` does); results are returned on the input's device.

* ``_to_sparse_semi_structured``: ``SparseSemiStructuredOps.cu`` ``_to_sparse_semi_structured``:
  every group of 4 (half, bfloat16, int8) must hold exactly two non-zeros, every pair of
  float32 exactly one (otherwise the same RuntimeError); the kept values in row order; one
  4-bit code per group (index of the first kept element | index of the second << 2, in
  16-bit units for float32), 4 codes per int16 (8 per int32 for int8), stored in CUTLASS's
  ``ColumnMajorInterleaved<2>`` order after its row interleave and 2x2 swap (``reorder_meta``).
* ``_sparse_semi_structured_mm`` / ``_addmm``: ``SparseSemiStructuredOps.cu``
  ``sparse_semi_structured_mad_op``: ``alpha * (A @ B) + beta * input`` with ``input`` a
  vector over A's rows; A is decoded from values and reordered metadata, and only the kept
  elements are multiplied (a sparse MMA never reads the pruned positions of B). half /
  bfloat16: float32 accumulation and epilogue, one rounding to the output; float32: operands
  rounded to TF32 as CUTLASS does for float tensor-core MMAs (``round_half_ulp_truncate``:
  add half a TF32 ulp, drop 13 bits), float32 accumulation; int8: int32 accumulation
  (saturating, ``OpMultiplyAddSaturate``), int32 epilogue with ``int(alpha)``, ``int(beta)``,
  output int32 or int8 (``out_dtype``; other out_dtypes raise here, where CUDA launches
  nothing or writes its own dtype). The int32 -> int8 store is modelled saturating; the
  CUTLASS converter's overflow behaviour and MUSA's summation order: unknown.
* ``_sparse_semi_structured_linear``: ``SparseSemiStructuredLinear.cu``
  ``_sparse_semi_structured_linear``: ``input @ weight.T + bias`` over the last dimension of
  ``input``, then ``activation`` (``none``, ``relu``, ``silu``; int8 has no silu) in the
  accumulation type, as the mm above; int8 outputs int8 unless ``out_dtype`` is int32 (the
  only out_dtype it accepts). SiLU's exp: torch's float32 one (CUTLASS's: not reproduced).
* ``_sparse_semi_structured_tile``: ``SparseSemiStructuredTile.cu``
  ``_sparse_semi_structured_tile`` with ``ComputeSparseTile.h`` (``LargestValuesGreedy``,
  ``Causal1122``, ``named_algorithms``) and ``SparseSemiStructuredPack.h`` (``pack_4x4``,
  ``Tile8x8Masks``): every 4x4 tile keeps at most two values per row and per column, taken
  greedily from the largest (by value, or by magnitude for ``largest_abs_values_greedy``;
  ``causal1122``: row by row, at most 1, 1, 2, 2). CUDA ranks with a sorting network whose
  order among equal values is not reproduced: here a stable sort, the later position of
  equal values taken first (distinct values give CUDA's pattern); NaN ranking: unknown.
  Rows past the end (to a multiple of 32) are filled with -inf and pruned, as CUDA does;
  columns past the end (to a multiple of 64) are filled so too, where CUDA reads past the
  row. Kept values are packed per row of a tile as ``pack_4x4`` places them (one kept value
  in column 2 or 3 goes to the second slot); a metadata slot CUDA leaves unset (a tile row
  keeping fewer than two) is index 0 (first slot) or 2 (second slot) here. CUTLASS
  (``use_cutlass=True``): packed (rows rounded to 32, cols rounded to 64 / 2), metadata in
  the reordered CUTLASS order viewed (rows, 2, cols / 32) as ``MetadataCutlass`` allocates it,
  and the same for the transpose; cuSPARSELt: the compressed layout of ``_cslt_compress``
  below (rows and cols multiples of 128, as ``MetadataCuSparseLt`` requires; metadata viewed
  (rows / 128, cols / 32, 256)); the card's cuSPARSELt metadata order: unknown. Threads
  masks: (rows/8, cols/8, 8) uint8, per 8x8 block the 16-bit masks of its 4x4 tiles a, b, c, d
  (bit ``col + 4 * row``), little-endian.
* ``_sparse_semi_structured_apply``: ``SparseSemiSturcturedApply.cu``: the threads masks
  applied to another tensor, packed both ways as the tile does (values only); positions past
  the input, undefined on CUDA, are 0 here.
* ``_sparse_semi_structured_apply_dense``: ``SparseSemiStructuredApplyDense.cu``: ``input``
  times its mask bit (0 * NaN stays NaN, as CUDA's product does).
* ``_cslt_compress``: ``cuSPARSELtOps.cpp`` ``_cslt_compress``: the size is PyTorch's
  (``numel * 9 / 16`` elements; ``* 10 / 16`` for int8). The layout inside is cuSPARSELt's
  and opaque; this model's, consistent with what ``SparseSemiStructuredTensor.values()`` reads:
  the kept values (rows, cols / 2) row-major, then one 4-bit code per group of 4 (as above,
  two codes per byte, low nibble first), zero-padded. The card's layout: unknown. cuSPARSELt
  does not check the pattern; a group with more than two non-zeros (float32: a pair with two)
  raises here rather than invent which ones the library keeps. float8: not modelled (raises).
* ``_cslt_sparse_mm``: ``cuSPARSELtOps.cpp`` ``_cslt_sparse_mm_impl``: m from
  ``numel * 16 / factor / k``; ``alpha`` (a scalar 1 or a per-row vector) times the product
  plus ``bias`` (per row), ``transpose_result`` gives the (n, m) result. half / bfloat16:
  float32 accumulation (``CUSPARSE_COMPUTE_32F``); float32: TF32 operands as above
  (cuSPARSELt's rounding of them: unknown); int8: int32 accumulation, output int8, or
  half / bfloat16 / int32 (``out_dtype``); the int8 epilogue's rounding: nearest-even,
  saturating here, cuSPARSELt's and the card's: unknown. ``alg_id`` / ``split_k`` select
  kernels (MUSA's summation order: unknown); the result here does not depend on them.
* ``_cslt_sparse_mm_search``: the same, returning the algorithm id: cuSPARSELt times its
  candidates and returns the fastest; here always 0 (the card's pick: unknown).

Registered only where the release's table registers the row and this torch defines the
overload without a CPU kernel (``later_kernels.install``).
"""
import torch

_HALF_TYPES = (torch.float16, torch.bfloat16)


def _check(cond, message):
    if not cond:
        raise RuntimeError(message)


def _round_up(x, multiple):
    return (x + multiple - 1) // multiple * multiple


def _host(t):
    return t.detach().to("cpu")


def _memory_order(t):
    """The elements of a dense (possibly permuted) tensor in the order they lie in memory."""
    order = sorted(range(t.dim()), key=lambda d: (-t.stride(d), d))
    flat = t.permute(order)
    _check(flat.is_contiguous(), "metadata tensor must be dense in memory")
    return flat.reshape(-1)


# --- 2:4 group codes --------------------------------------------------------------------

def _slots(keep):
    """keep: bool (..., 4), at most two True. Which column each of the two packed slots takes,
    as pack_4x4 places them: two kept -> (lower, upper); one kept in column 0/1 -> first slot,
    in column 2/3 -> second slot. Unset slots: index 0 (first) / 2 (second)."""
    cols = torch.arange(4)
    count = keep.sum(-1)
    first = torch.where(keep, cols, 4).amin(-1)
    last = torch.where(keep, cols, -1).amax(-1)
    two, one = count == 2, count == 1
    has0 = two | (one & (first < 2))
    has1 = two | (one & (first >= 2))
    idx0 = torch.where(has0, first, 0)
    idx1 = torch.where(two, last, torch.where(has1, first, 2))
    return idx0, idx1, has0, has1


def _pack_rows(dense, keep):
    """dense (R, C) and keep (R, C) -> kept values (R, C/2) and slot indices (R, C/4) x 2."""
    rows, cols = dense.shape
    groups = dense.reshape(rows, cols // 4, 4)
    idx0, idx1, has0, has1 = _slots(keep.reshape(rows, cols // 4, 4))
    v0 = torch.where(has0, groups.gather(-1, idx0.unsqueeze(-1)).squeeze(-1),
                     torch.zeros((), dtype=dense.dtype))
    v1 = torch.where(has1, groups.gather(-1, idx1.unsqueeze(-1)).squeeze(-1),
                     torch.zeros((), dtype=dense.dtype))
    return torch.stack((v0, v1), -1).reshape(rows, cols // 2), idx0, idx1


def _reordered_positions(rows, cols, wide):
    """Where element (r, c) of a row-major (rows, cols) metadata matrix lies in CUTLASS's
    reordered storage: rows interleaved within groups of 32 (16-bit elements) or 16 (32-bit),
    2x2 blocks swapped from Z to N order, then ColumnMajorInterleaved<2>."""
    r = torch.arange(rows).unsqueeze(1).expand(rows, cols)
    c = torch.arange(cols).unsqueeze(0).expand(rows, cols)
    group, weave = (32, 4) if wide else (16, 2)
    dr = (r // group) * group + (r % 8) * weave + (r % group) // 8
    swap = (dr % 2) != (c % 2)
    step = torch.where(dr % 2 == 0, 1, -1)
    dr = torch.where(swap, dr + step, dr)
    dc = torch.where(swap, c - step, c)
    return (dc // 2) * (rows * 2) + dr * 2 + dc % 2


def _cutlass_meta(codes, meta_dtype):
    """codes: int64 (R, G) 4-bit group codes -> reordered metadata, flat (R * G / per)."""
    rows, groups = codes.shape
    per = 4 if meta_dtype == torch.int16 else 8
    shifts = torch.arange(per) * 4
    words = (codes.reshape(rows, groups // per, per) << shifts).sum(-1)
    words = words.to(torch.int32).to(meta_dtype) if meta_dtype == torch.int16 \
        else words.to(torch.int32)
    flat = torch.empty(words.numel(), dtype=meta_dtype)
    flat[_reordered_positions(rows, groups // per, meta_dtype == torch.int16).reshape(-1)] = \
        words.reshape(-1)
    return flat


def _cutlass_codes(meta_flat, rows, words_per_row, meta_dtype):
    """Inverse of _cutlass_meta: (rows, words_per_row * per) 4-bit codes."""
    per = 4 if meta_dtype == torch.int16 else 8
    pos = _reordered_positions(rows, words_per_row, meta_dtype == torch.int16)
    words = meta_flat.to(torch.int64)[pos] & ((1 << (4 * per)) - 1)
    shifts = torch.arange(per) * 4
    return ((words.unsqueeze(-1) >> shifts) & 0xF).reshape(rows, words_per_row * per)


# --- the sparse product -----------------------------------------------------------------

def _tf32(x):
    """CUTLASS's float -> TF32 operand conversion (round_half_ulp_truncate)."""
    bits = x.contiguous().view(torch.int32)
    rounded = torch.bitwise_and(bits + 0x1000, -0x2000)
    return torch.where(torch.isfinite(x), rounded, bits).view(torch.float32)


def _sparse_product(values, cols, dense_b):
    """sum_j values[i, j] * B[cols[i, j], :] on the host: only kept elements are multiplied.
    Floats accumulate in float32, integers in int64."""
    rows, kept = values.shape
    n = dense_b.shape[1]
    is_int = not values.dtype.is_floating_point
    acc = torch.int64 if is_int else torch.float32
    vals, b = values.to(acc), dense_b.to(acc)
    if values.dtype == torch.float32:
        vals, b = _tf32(vals), _tf32(b)
    out = torch.empty(rows, n, dtype=acc)
    chunk = max(1, (1 << 22) // max(1, kept * n))
    for start in range(0, rows, chunk):
        v = vals[start:start + chunk]
        sel = b[cols[start:start + chunk]]  # (c, kept, n)
        if is_int:
            out[start:start + chunk] = (v.unsqueeze(-1) * sel).sum(1)
        else:
            out[start:start + chunk] = torch.bmm(v.unsqueeze(1), sel).squeeze(1)
    if is_int:  # OpMultiplyAddSaturate
        out = out.clamp(-2 ** 31, 2 ** 31 - 1)
    return out


def _saturate(x, dtype):
    info = torch.iinfo(dtype)
    return x.clamp(info.min, info.max).to(dtype)


def _cutlass_columns(mat1, meta, k):
    """Decode CUTLASS values + reordered metadata: the dense column of every kept value."""
    rows, half_k = mat1.shape
    dtype = mat1.dtype
    meta_dtype = torch.int32 if dtype == torch.int8 else torch.int16
    _check(meta.dtype == meta_dtype, "Expected meta datatype %s, but got %s"
           % (meta_dtype, meta.dtype))
    per_word = 32 if dtype == torch.int8 else (8 if dtype == torch.float32 else 16)
    _check(k % per_word == 0 and rows % (16 if dtype == torch.int8 else 32) == 0,
           "mat1 of shape (%d, %d) is not a shape of a semi-structured sparse matrix of this "
           "datatype" % (rows, half_k))
    words = k // per_word
    _check(meta.numel() == rows * words, "Expected meta of %d x %d elements, but got shape %s"
           % (rows, words, tuple(meta.shape)))
    codes = _cutlass_codes(_memory_order(_host(meta)), rows, words, meta_dtype)
    if dtype == torch.float32:  # one kept float per pair, code in 16-bit units
        return torch.arange(half_k) * 2 + (codes & 0x3) // 2
    idx = torch.stack((codes & 0x3, codes >> 2), -1).reshape(rows, half_k)
    return torch.arange(half_k) // 2 * 4 + idx


def _mad(mat1, mat1_meta, mat2, input, alpha, beta, out_dtype, fn):
    dtype = mat2.dtype
    _check(dtype in (torch.int8, torch.float16, torch.bfloat16, torch.float32),
           "%s : The mat2 datatype %s is not supported" % (fn, dtype))
    _check(mat1.dtype == dtype, "%s : Expected mat1 datatype %s, but got %s"
           % (fn, dtype, mat1.dtype))
    out_dtype = dtype if out_dtype is None else out_dtype
    if dtype == torch.int8:
        _check(out_dtype in (torch.int8, torch.int32), "%s : out_dtype %s is not supported "
               "for int8 inputs (int8 or int32)" % (fn, out_dtype))
    else:
        _check(out_dtype == dtype, "%s : out_dtype %s is not supported for %s inputs"
               % (fn, out_dtype, dtype))
    has_input = input is not None and input.numel() != 0
    if has_input:
        _check(input.dtype == out_dtype, "%s : Expected input datatype %s, but got %s"
               % (fn, out_dtype, input.dtype))
    _check(mat1.dim() == 2, "%s : Expected mat1 argument to be 2D tensor, got %d dims"
           % (fn, mat1.dim()))
    _check(mat2.dim() == 2, "%s : Expected mat2 argument to be 2D tensor, got %d dims"
           % (fn, mat2.dim()))
    if has_input:
        _check(input.dim() == 1, "%s : Expected input argument to be 1D tensor, got %d dims"
               % (fn, input.dim()))
    _check(mat1.size(1) == mat2.size(0) // 2, "%s : Expected mat1 argument to have %d "
           "columns, but got %d" % (fn, mat2.size(0) // 2, mat1.size(1)))
    if has_input:
        _check(input.size(0) == mat1.size(0), "%s : Expected input argument to have %d "
               "elements, but got %d" % (fn, mat1.size(0), input.size(0)))
    cols = _cutlass_columns(mat1, mat1_meta, mat2.size(0))
    acc = _sparse_product(_host(mat1), cols, _host(mat2))
    rows = mat1.size(0)
    if dtype == torch.int8:
        c = _host(input).to(torch.int64) if has_input else torch.zeros(rows, dtype=torch.int64)
        res = (int(alpha) * acc + int(beta) * c.unsqueeze(1)).to(torch.int32)
        res = res if out_dtype == torch.int32 else _saturate(res, torch.int8)
    else:
        c = _host(input).to(torch.float32) if has_input else torch.zeros(rows)
        a = torch.tensor(float(alpha), dtype=torch.float32)
        b = torch.tensor(float(beta), dtype=torch.float32)
        res = (a * acc + b * c.unsqueeze(1)).to(out_dtype)
    return res.to(mat2.device)


def to_sparse_semi_structured(dense):
    fn = "_to_sparse_semi_structured"
    _check(dense.dim() == 2, "%s : Expected dense argument to be 2D tensor, got %d dims"
           % (fn, dense.dim()))
    dtype = dense.dtype
    if dtype == torch.int8:
        meta_dtype, per_word, row_multiple = torch.int32, 32, 16
    elif dtype in _HALF_TYPES + (torch.float32,):
        meta_dtype, row_multiple = torch.int16, 32
        per_word = 8 if dtype == torch.float32 else 16
    else:
        raise RuntimeError("%s: Invalid dense argument datatype %s encountered" % (fn, dtype))
    rows, cols = dense.shape
    _check(rows % row_multiple == 0, "%s: Number of rows of dense matrix must be divisible "
           "by %d, but it is %d" % (fn, row_multiple, rows))
    _check(cols % per_word == 0, "%s: Number of columns of dense matrix must be divisible "
           "by %d, but it is %d" % (fn, per_word, cols))
    host = _host(dense)
    nonzero = host != 0
    if dtype == torch.float32:
        pairs = nonzero.reshape(rows, cols // 2, 2)
        _check(bool((pairs.sum(-1) == 1).all()), "%s: dense argument does not match 1:2 "
               "sparsity pattern" % fn)
        kept = pairs[..., 1].to(torch.int64)
        codes = (2 * kept) | ((2 * kept + 1) << 2)
    else:
        quads = nonzero.reshape(rows, cols // 4, 4)
        _check(bool((quads.sum(-1) == 2).all()), "%s: dense argument does not match 2:4 "
               "sparsity pattern" % fn)
        idx0, idx1, _, _ = _slots(quads)
        codes = idx0 | (idx1 << 2)
    values = host[nonzero].reshape(rows, cols // 2)
    meta = _cutlass_meta(codes, meta_dtype).reshape(rows, cols // per_word)
    return values.to(dense.device), meta.to(dense.device)


def sparse_semi_structured_mm(mat1, mat1_meta, mat2, *, out_dtype=None):
    return _mad(mat1, mat1_meta, mat2, None, 1, 0, out_dtype, "_sparse_semi_structured_mm")


def sparse_semi_structured_addmm(input, mat1, mat1_meta, mat2, *, alpha=1, beta=1,
                                 out_dtype=None):
    return _mad(mat1, mat1_meta, mat2, input, alpha, beta, out_dtype,
                "_sparse_semi_structured_addmm")


def sparse_semi_structured_linear(input, weight, meta, *, bias=None, activation=None,
                                  out_dtype=None):
    fn = "_sparse_semi_structured_linear"
    dtype = weight.dtype
    _check(out_dtype is None or (dtype == torch.int8 and out_dtype == torch.int32),
           "%s: Setting out_dtype is only supported for int8 input and int32 output" % fn)
    _check(dtype in (torch.int8, torch.float16, torch.bfloat16, torch.float32),
           "%s: The weight datatype %s is not supported" % (fn, dtype))
    _check(input.dtype == dtype, "%s: Expected input datatype %s, but got %s"
           % (fn, dtype, input.dtype))
    _check(weight.dim() == 2, "%s: Expected weight argument to be 2D tensor, got %d dims"
           % (fn, weight.dim()))
    _check(input.dim() >= 1, "%s: Expected input argument to have at least 1 dim" % fn)
    has_bias = bias is not None and bias.numel() != 0
    if has_bias:
        _check(bias.dim() == 1, "%s: Expected bias argument to be 1D tensor, got %d dims"
               % (fn, bias.dim()))
    k = input.size(-1)
    _check(weight.size(1) == k // 2, "%s: Expected weight argument to have %d columns, but "
           "got %d" % (fn, k // 2, weight.size(1)))
    if has_bias:
        _check(bias.size(0) == weight.size(0), "%s: Expected bias argument to have %d "
               "elements, but got %d" % (fn, weight.size(0), bias.size(0)))
    activation = "none" if activation is None else activation
    allowed = ("none", "relu") if dtype == torch.int8 else ("none", "relu", "silu")
    _check(activation in allowed, "two_four_sgemm_dispatch_layouts: Activation \"%s\" is not "
           "supported for given input tensors" % activation)
    out = out_dtype or dtype
    if has_bias:
        _check(bias.dtype == out, "two_four_sgemm: Expected sparse GEMM bias datatype %s, "
               "but got %s" % (out, bias.dtype))
    b = _host(input).reshape(-1, k).t()
    cols = _cutlass_columns(weight, meta, k)
    acc = _sparse_product(_host(weight), cols, b)  # (out_features, tokens)
    if has_bias:
        acc = acc + _host(bias).to(acc.dtype).unsqueeze(1)
    if activation == "relu":
        acc = acc.clamp_min(0)
    elif activation == "silu":
        acc = torch.nn.functional.silu(acc)
    if dtype == torch.int8:
        acc = acc.to(torch.int32)
        res = acc if out == torch.int32 else _saturate(acc, torch.int8)
    else:
        res = acc.to(out)
    sizes = list(input.shape[:-1]) + [weight.size(0)]
    return res.t().reshape(sizes).to(input.device)


# --- tile / apply -----------------------------------------------------------------------

_ALGORITHMS = ("largest_values_greedy", "causal1122", "largest_abs_values_greedy", "")


def _greedy(keys):
    """keys (T, 16) -> keep (T, 16): largest first, at most 2 per row and per column."""
    tiles = keys.shape[0]
    order = torch.sort(keys, dim=1, stable=True).indices.flip(1)
    per_row = torch.zeros(tiles, 4, dtype=torch.int64)
    per_col = torch.zeros(tiles, 4, dtype=torch.int64)
    keep = torch.zeros(tiles, 16, dtype=torch.bool)
    every = torch.arange(tiles)
    for step in range(16):
        pos = order[:, step]
        r, c = pos // 4, pos % 4
        take = (per_row[every, r] < 2) & (per_col[every, c] < 2)
        keep[every, pos] = take
        per_row[every, r] += take
        per_col[every, c] += take
    return keep


def _causal1122(keys):
    tiles = keys.shape[0]
    keys = keys.reshape(tiles, 4, 4)
    per_col = torch.zeros(tiles, 4, dtype=torch.int64)
    keep = torch.zeros(tiles, 4, 4, dtype=torch.bool)
    every = torch.arange(tiles)
    for row, limit in enumerate((1, 1, 2, 2)):
        order = torch.sort(keys[:, row], dim=1, stable=True).indices.flip(1)
        taken = torch.zeros(tiles, dtype=torch.int64)
        for step in range(4):
            c = order[:, step]
            take = (per_col[every, c] < 2) & (taken < limit)
            keep[every, row, c] = take
            per_col[every, c] += take
            taken += take
    return keep.reshape(tiles, 16)


def _tile_keep(padded, algorithm):
    rows, cols = padded.shape
    tiles = padded.to(torch.float32).reshape(rows // 4, 4, cols // 4, 4).permute(0, 2, 1, 3)
    keys = tiles.reshape(-1, 16)
    if algorithm == "largest_abs_values_greedy":
        keys = keys.abs()
    keep = _causal1122(keys) if algorithm == "causal1122" else _greedy(keys)
    return keep.reshape(rows // 4, cols // 4, 4, 4).permute(0, 2, 1, 3).reshape(rows, cols)


def _threads_masks(keep):
    """keep (R, C), R % 8 == C % 8 == 0 -> (R/8, C/8, 8) uint8 (Tile8x8Masks a, b, c, d)."""
    rows, cols = keep.shape
    weights = (1 << torch.arange(16)).reshape(4, 4)
    tiles = keep.reshape(rows // 4, 4, cols // 4, 4).permute(0, 2, 1, 3).to(torch.int64)
    masks = (tiles * weights).sum((-1, -2))  # (R/4, C/4), bit col + 4 * row
    blocks = masks.reshape(rows // 8, 2, cols // 8, 2).permute(0, 2, 1, 3).reshape(
        rows // 8, cols // 8, 4)
    return torch.stack((blocks & 0xFF, blocks >> 8), -1).reshape(
        rows // 8, cols // 8, 8).to(torch.uint8)


def _keep_from_masks(masks):
    blocks = masks.to(torch.int64).reshape(masks.shape[0], masks.shape[1], 4, 2)
    words = blocks[..., 0] | (blocks[..., 1] << 8)  # (R/8, C/8, 4): a, b, c, d
    bits = (words.unsqueeze(-1) >> torch.arange(16)) & 1
    r8, c8 = masks.shape[:2]
    return bits.reshape(r8, c8, 2, 2, 4, 4).permute(0, 2, 4, 1, 3, 5).reshape(
        r8 * 8, c8 * 8).bool()


def _codes(idx0, idx1):
    return idx0 | (idx1 << 2)


def _cutlass_packed(dense, keep):
    """Packed values and reordered metadata viewed as MetadataCutlass allocates it."""
    rows, cols = dense.shape
    values, idx0, idx1 = _pack_rows(dense, keep)
    meta = _cutlass_meta(_codes(idx0, idx1), torch.int16)
    return values, meta.reshape(cols // 32, rows, 2).permute(1, 2, 0)


def _cslt_factor(dtype):
    return 10 if dtype == torch.int8 else 9


def _cslt_layout(values, codes, dtype):
    """This model's cuSPARSELt compressed tensor: values row-major, then the 4-bit codes."""
    rows, groups = codes.shape
    total = rows * groups * 4 * _cslt_factor(dtype) // 16
    meta_bytes = (total - values.numel()) * values.element_size()
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).to(torch.uint8).reshape(-1)
    region = torch.zeros(meta_bytes, dtype=torch.uint8)
    region[:packed.numel()] = packed
    return torch.cat((values.reshape(-1), region.view(dtype)))


def _check_tile_input(input, fn):
    _check(input.dtype in _HALF_TYPES, "%s: input datatype %s is not supported (float16 or "
           "bfloat16)" % (fn, input.dtype))
    _check(input.dim() == 2, "Can only sparsify 2d tensors")


def sparse_semi_structured_tile(input, algorithm="", use_cutlass=True):
    _check_tile_input(input, "_sparse_semi_structured_tile")
    _check(input.stride(1) == 1,
           "Can only sparsify contiguous tensors. Sparsify the transpose otherwise.")
    rows, cols = input.shape
    if not use_cutlass:
        _check(rows % 128 == 0 and cols % 128 == 0, "Only supports rows/cols multiples of 128")
    _check(cols % 32 == 0, "Number of cols should be multiple of 32")
    _check(algorithm in _ALGORITHMS, "Unknown algorithm \"%s\"" % algorithm)
    host = _host(input)
    r32, r64, c32, c64 = (_round_up(rows, 32), _round_up(rows, 64), _round_up(cols, 32),
                          _round_up(cols, 64))
    # rows/cols past the end: the algorithm's fill value (-inf); rows no block covers: unset
    padded = torch.full((r32, c64), float("-inf"), dtype=input.dtype)
    padded[:rows, :cols] = host
    keep = _tile_keep(padded, algorithm)
    masks = _threads_masks(keep)
    dense = torch.zeros(r64, c64, dtype=input.dtype)
    dense[:r32] = padded
    kept = torch.zeros(r64, c64, dtype=torch.bool)
    kept[:r32] = keep
    dev = input.device
    if use_cutlass:
        packed, meta = _cutlass_packed(dense[:r32], kept[:r32])
        packed_t, meta_t = _cutlass_packed(dense.t()[:c32].contiguous(),
                                           kept.t()[:c32].contiguous())
        outs = (packed, meta, packed_t, meta_t)
    else:
        outs = []
        for d, k in ((dense, kept), (dense.t().contiguous(), kept.t().contiguous())):
            values, idx0, idx1 = _pack_rows(d, k)
            storage = _cslt_layout(values, _codes(idx0, idx1), input.dtype)
            meta = storage[values.numel():].view(d.shape[0] // 128, d.shape[1] // 32, 256)
            outs += [storage, meta]
    return tuple(t.to(dev) for t in outs) + (masks.to(dev),)


def _check_masks(masks, rows, cols):
    _check(masks.dim() == 3, "thread_masks must be a 3D tensor")
    _check(masks.dtype == torch.uint8, "thread_masks must be uint8, got %s" % masks.dtype)
    expect = (_round_up(rows, 32) // 8, _round_up(cols, 64) // 8, 8)
    _check(tuple(masks.shape) == expect, "thread_masks of shape %s do not match an input of "
           "shape (%d, %d): expected %s" % (tuple(masks.shape), rows, cols, expect))


def sparse_semi_structured_apply(input, thread_masks):
    _check_tile_input(input, "_sparse_semi_structured_apply")
    rows, cols = input.shape
    _check(cols % 32 == 0, "Wrong alignment shape[1]")
    _check_masks(thread_masks, rows, cols)
    r32, c64 = _round_up(rows, 32), _round_up(cols, 64)
    dense = torch.zeros(r32, c64, dtype=input.dtype)
    dense[:rows, :cols] = _host(input)
    keep = _keep_from_masks(_host(thread_masks))
    packed, _, _ = _pack_rows(dense, keep)
    # packed_trans: (c64, ceil(r32 / 2)); r32 is a multiple of 4, so whole groups
    packed_t, _, _ = _pack_rows(dense.t().contiguous(), keep.t().contiguous())
    return packed.to(input.device), packed_t.to(input.device)


def sparse_semi_structured_apply_dense(input, thread_masks):
    _check(input.dtype in _HALF_TYPES, "Unsupported `input` dtype")
    _check(input.dim() == 2 and (input.stride(0) == 1 or input.stride(1) == 1),
           "`input` should be either RowMajor or ColMajor. Invalid memory layout - try "
           ".contiguous()?")
    rows, cols = input.shape
    _check_masks(thread_masks, rows, cols)
    keep = _keep_from_masks(_host(thread_masks))[:rows, :cols]
    out = _host(input) * keep.to(input.dtype)
    return out.contiguous().to(input.device)


# --- cuSPARSELt -------------------------------------------------------------------------

def _cslt_dtype_check(dtype, fn):
    if dtype == torch.float8_e4m3fn:
        raise RuntimeError("%s: float8_e4m3fn is not modelled by the simulator" % fn)
    _check(dtype in (torch.int8, torch.float16, torch.bfloat16, torch.float32),
           "Unsupported dtype for cuSPARSELt compressed matrix" +
           ("" if fn == "_cslt_compress" else " multiplication."))


def cslt_compress(input):
    _cslt_dtype_check(input.dtype, "_cslt_compress")
    _check(input.dim() == 2, "_cslt_compress: expected a 2D tensor, got %d dims" % input.dim())
    rows, cols = input.shape
    multiple = 32 if input.dtype == torch.int8 else 16
    _check(rows % multiple == 0 and cols % multiple == 0, "_cslt_compress: rows and cols of a "
           "%s matrix must be multiples of %d, got (%d, %d)" % (input.dtype, multiple, rows, cols))
    host = _host(input).contiguous()
    nonzero = host != 0
    if input.dtype == torch.float32:
        _check(bool((nonzero.reshape(rows, cols // 2, 2).sum(-1) <= 1).all()),
               "_cslt_compress: input does not match the 1:2 sparsity pattern float32 needs")
    _check(bool((nonzero.reshape(rows, cols // 4, 4).sum(-1) <= 2).all()),
           "_cslt_compress: input does not match the 2:4 sparsity pattern")
    values, idx0, idx1 = _pack_rows(host, nonzero)
    return _cslt_layout(values, _codes(idx0, idx1), input.dtype).to(input.device)


def _cslt(compressed_A, dense_B, bias, alpha, out_dtype, transpose_result):
    fn = "_cslt_sparse_mm"
    dtype = compressed_A.dtype
    _cslt_dtype_check(dtype, fn)
    out = dense_B.dtype
    if out_dtype is not None:
        _check(dtype == torch.int8, "out_dtype support only available for int8 inputs")
        _check(out_dtype in (torch.float16, torch.bfloat16, torch.int32),
               "Unsupported out_dtype passed, must be one of {fp16, bf16, int32}")
        out = out_dtype
    _check(dense_B.dtype == dtype, "%s: dense_B datatype %s does not match compressed_A's %s"
           % (fn, dense_B.dtype, dtype))
    _check(dense_B.dim() == 2, "%s: dense_B must be 2D, got %d dims" % (fn, dense_B.dim()))
    k, n = dense_B.shape
    factor = _cslt_factor(dtype)
    total = compressed_A.numel()
    m = (total * 16 // factor) // k if k else 0
    _check(k % 8 == 0 and m > 0 and m * k * factor == total * 16,
           "%s: compressed_A (%d elements) is not the compressed form of an m x %d matrix "
           "(dense_B has %d rows)" % (fn, total, k, k))
    flat = _host(compressed_A).reshape(-1)
    values = flat[:m * k // 2].reshape(m, k // 2)
    meta = flat[m * k // 2:].contiguous().view(torch.uint8)[:m * k // 8].to(torch.int64)
    codes = torch.stack((meta & 0xF, meta >> 4), -1).reshape(m, k // 4)
    idx = torch.stack((codes & 0x3, (codes >> 2) & 0x3), -1).reshape(m, k // 2)
    cols = torch.arange(k // 2) // 2 * 4 + idx
    acc = _sparse_product(values, cols, _host(dense_B))
    if alpha is not None:
        _check(alpha.numel() == m, "%s: alpha must hold %d elements (one per row), got %d"
               % (fn, m, alpha.numel()))
    if bias is not None:
        _check(bias.numel() == m, "%s: bias must hold %d elements (one per row), got %d"
               % (fn, m, bias.numel()))
    if dtype == torch.int8:
        res = acc.to(torch.float64)
        if alpha is not None:
            res = res * _host(alpha).to(torch.float32).to(torch.float64).reshape(m, 1)
        if bias is not None:
            res = res + _host(bias).to(torch.float64).reshape(m, 1)
        res = _saturate(torch.round(res), out) if out in (torch.int8, torch.int32) \
            else res.to(out)
    else:
        if alpha is not None:
            acc = acc * _host(alpha).to(torch.float32).reshape(m, 1)
        if bias is not None:
            acc = acc + _host(bias).to(torch.float32).reshape(m, 1)
        res = acc.to(out)
    if transpose_result:
        res = res.t().contiguous()
    return res.to(dense_B.device)


def cslt_sparse_mm(compressed_A, dense_B, bias=None, alpha=None, out_dtype=None,
                   transpose_result=False, alg_id=0, split_k=1, split_k_mode=-1):
    _check(alg_id >= 0, "_cslt_sparse_mm: alg_id must be non-negative, got %d" % alg_id)
    return _cslt(compressed_A, dense_B, bias, alpha, out_dtype, transpose_result)


def cslt_sparse_mm_search(compressed_A, dense_B, bias=None, alpha=None, out_dtype=None,
                          transpose_result=False):
    _cslt(compressed_A, dense_B, bias, alpha, out_dtype, transpose_result)
    return 0


KERNELS = {
    "_to_sparse_semi_structured": to_sparse_semi_structured,
    "_sparse_semi_structured_linear": sparse_semi_structured_linear,
    "_sparse_semi_structured_mm": sparse_semi_structured_mm,
    "_sparse_semi_structured_addmm": sparse_semi_structured_addmm,
    "_sparse_semi_structured_tile": sparse_semi_structured_tile,
    "_sparse_semi_structured_apply": sparse_semi_structured_apply,
    "_sparse_semi_structured_apply_dense": sparse_semi_structured_apply_dense,
    "_cslt_compress": cslt_compress,
    "_cslt_sparse_mm": cslt_sparse_mm,
    "_cslt_sparse_mm_search": cslt_sparse_mm_search,
}
