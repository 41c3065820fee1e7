"""DispatchStubs torch_musa v2.7.1 registers (REGISTER_DISPATCH / REGISTER_MUSA_DISPATCH in
torch_musa/csrc) reach the simulated device: a stub that torch calls from composite code
for the tensor's own device type bypasses the dispatcher and the simulator's CPU fallback
(kaiser_window: UnarySpecialOpsKernel.mu:395, modelled in musa_sim.cpp). For every other
registered stub an op that runs it gives the CPU's numbers exactly (they reach the device
through dispatched ops, which the fallback runs on the CPU kernels)."""
from tests._fresh import bare_sim_env, last_json, run_python

KAISER = r'''
import json, torch, torch_musa
rows = {}
for dtype in (torch.float32, torch.float64):
    for periodic in (False, True):
        for n, beta in ((1, 12.0), (7, 12.0), (16, 3.5)):
            ref = torch.kaiser_window(n, periodic=periodic, beta=beta, dtype=dtype)
            got = torch.kaiser_window(n, periodic=periodic, beta=beta, dtype=dtype, device="musa")
            rows["%s periodic=%s n=%d" % (dtype, periodic, n)] = [
                got.device.type, str(got.dtype) == str(dtype), torch.equal(got.cpu(), ref)]
print(json.dumps(rows))
'''


def test_kaiser_window_on_the_device_equals_the_cpus():
    rows = last_json(run_python(KAISER, env=bare_sim_env(), timeout=600))
    assert len(rows) == 12
    for case, (device, dtype_ok, equal) in rows.items():
        assert device == "musa" and dtype_ok and equal, case


# stub (torch_musa v2.7.1 file:line) -> an op that runs it
STUB_OPS = r'''
import json, torch, torch_musa
x = torch.rand(4, 4) + 0.5
spd = x @ x.T + 4 * torch.eye(4)
idx = torch.tensor([0, 2])
cases = {
 "exp2_stub (UnarySpecialOpsKernel.mu:384)": lambda t: torch.exp2(t(x)),
 "i0_stub (:385)": lambda t: torch.i0(t(x)),
 "special_i0e_stub (:386)": lambda t: torch.special.i0e(t(x)),
 "special_i1_stub (:387)": lambda t: torch.special.i1(t(x)),
 "special_i1e_stub (:388)": lambda t: torch.special.i1e(t(x)),
 "sigmoid_stub (:389)": lambda t: torch.sigmoid(t(x)),
 "sinc_stub (:390)": lambda t: torch.sinc(t(x)),
 "logit_stub (:391)": lambda t: torch.logit(t(x) / 2),
 "erf_stub (:392)": lambda t: torch.erf(t(x)),
 "erfc_stub (:393)": lambda t: torch.erfc(t(x)),
 "erfinv_stub (:394)": lambda t: torch.erfinv(t(x) / 2),
 "special_entr_stub (:396)": lambda t: torch.special.entr(t(x)),
 "special_ndtri_stub (:397)": lambda t: torch.special.ndtri(t(x) / 2),
 "special_log_ndtr_stub (:398)": lambda t: torch.special.log_ndtr(t(x)),
 "special_erfcx_stub (:399)": lambda t: torch.special.erfcx(t(x)),
 "angle_stub (UnaryComplexKernels.mu:97)": lambda t: torch.angle(t(x) - 1),
 "conj_physical_stub (:98)": lambda t: torch.view_as_real(torch.conj_physical(t(x.to(torch.complex64)))),
 "div_true_stub (Div.mu:77)": lambda t: t(x) / t(x + 1),
 "mul_stub (Mul.mu:65)": lambda t: t(x) * t(x),
 "std_var_stub (ReduceMomentKernel.mu:79)": lambda t: torch.std(t(x), 0),
 "mean_stub (:80)": lambda t: t(x).mean(0),
 "nansum_stub (ReduceSumProdKernel.mu:94)": lambda t: torch.nansum(t(x), 0),
 "triu_stub (Triangular.mu:271)": lambda t: torch.triu(t(x)),
 "tril_stub (:272)": lambda t: torch.tril(t(x)),
 "indexselect_stub (IndexSelect.mu:289)": lambda t: t(x).index_select(0, t(idx)),
 "index_copy_stub (IndexKernel.mu:939)": lambda t: t(x).index_copy(0, t(idx), t(x[:2])),
 "index_put_stub (:940)": lambda t: t(x).index_put((t(idx),), t(x[0])),
 "index_stub (:941)": lambda t: t(x)[t(idx)],
 "index_fill_stub (:942)": lambda t: t(x).index_fill(0, t(idx), 1.5),
 "put_stub (:943)": lambda t: t(x).put(t(idx), t(x[0, :2])),
 "take_stub (:944)": lambda t: t(x).take(t(idx)),
 "flip_stub (:945)": lambda t: t(x).flip(0),
 "embedding_dense_backward_stub (Embedding.mu:167)": lambda t: torch.ops.aten.embedding_dense_backward(t(x[:2]), t(idx), 4, -1, False),
 "embedding_bag_stub (EmbeddingBag.mu:332)": lambda t: torch.nn.functional.embedding_bag(t(idx), t(x), t(torch.tensor([0, 1]))),
 "bucketize_stub (Bucketize.mu:247)": lambda t: torch.bucketize(t(x), t(torch.tensor([0.6, 0.9, 1.2]))),
 "arange_start_out_stub (Arange.mu:176)": lambda t: torch.arange(1, 9, 2, device=t(x).device, dtype=torch.float32),
 "isin_default_stub (TensorCompare.cpp:23)": lambda t: torch.isin(t(idx), t(torch.tensor([2, 3]))),
 "norm_stub (ReduceOps.cpp:108)": lambda t: torch.linalg.vector_norm(t(x), 3, 0),
 "aminmax_stub (:109)": lambda t: torch.aminmax(t(x), dim=0)[0],
 "aminmax_allreduce_stub (:110)": lambda t: torch.aminmax(t(x))[0],
 "cholesky_stub (BatchLinearAlgebra.cpp:199)": lambda t: torch.linalg.cholesky(t(spd)),
 "lu_factor_stub (LinearAlgebra.cpp:75)": lambda t: torch.linalg.lu_factor(t(spd))[0],
 "lu_solve_stub (BatchLinearAlgebra.cpp:200)": lambda t: torch.linalg.lu_solve(*torch.linalg.lu_factor(t(spd)), t(x)),
 "triangular_solve_stub (:201)": lambda t: torch.linalg.solve_triangular(t(spd).triu(), t(x), upper=True),
 "ldl_factor_stub (:195)": lambda t: torch.linalg.ldl_factor(t(spd))[0],
 "ldl_solve_stub (:202)": lambda t: torch.linalg.ldl_solve(*torch.linalg.ldl_factor(t(spd)), t(x)),
 "linalg_eigh_stub (:203)": lambda t: torch.linalg.eigvalsh(t(spd)),
 "svd_stub (:204)": lambda t: torch.linalg.svdvals(t(spd)),
 "cholesky_inverse_stub (LinearAlgebra.cpp:76)": lambda t: torch.cholesky_inverse(torch.linalg.cholesky(t(spd))),
 "geqrf_stub (BatchLinearAlgebra.cpp:196)": lambda t: torch.geqrf(t(spd))[0],
 "orgqr_stub (:197)": lambda t: torch.linalg.householder_product(*torch.geqrf(t(spd))),
 "ormqr_stub (:198)": lambda t: torch.ormqr(*torch.geqrf(t(spd)), t(x)),
 "spectral stubs (SpectralOps.mu:136)": lambda t: torch.view_as_real(torch.fft.rfft(t(x))),
}
out = {}
for name, f in cases.items():
    ref = f(lambda a: a)
    ref = ref[0] if isinstance(ref, tuple) else ref
    try:
        got = f(lambda a: a.to("musa"))
        got = got[0] if isinstance(got, tuple) else got
        out[name] = [got.device.type, torch.equal(got.cpu(), ref)]
    except Exception as e:
        out[name] = [type(e).__name__, str(e).splitlines()[0][:200]]
print(json.dumps(out))
'''


def test_ops_behind_torch_musas_other_stubs_give_the_cpus_numbers():
    out = last_json(run_python(STUB_OPS, env=bare_sim_env(), timeout=600))
    assert len(out) == 53
    bad = {k: v for k, v in out.items() if v != ["musa", True]}
    assert not bad, bad
