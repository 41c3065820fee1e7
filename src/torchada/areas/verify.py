"""Differential execution: ``TORCHADA_VERIFY=1`` (``torchada run --verify``) reruns each op on
a musa tensor on CPU copies of its inputs and compares the results (``_verify/compare.py``
states the tolerance rule). The first mismatch raises ``VerifyMismatch`` naming the op, its
inputs' shapes and dtypes, the largest error, the module path (``model.layers.3.mlp``) and
the program's line; ``TORCHADA_VERIFY=all`` keeps going and tabulates. Findings go to the
translation report (``verify`` section, rank-aware file names) and the run summary.
``TORCHADA_VERIFY_FIRST`` / ``TORCHADA_VERIFY_EVERY`` sample the calls of each op.

CUDA APIs made to work: none; this checks torch_musa's kernels against the CPU's. Off (the
default) it installs nothing.

torch_musa APIs relied on: none beyond its kernels (copies to the CPU).
"""


def apply(ctx):
    from torchada._core import settings

    which = settings.read("TORCHADA_VERIFY")
    if which is None:  # off: nothing imported, nothing installed
        ctx.note("off (TORCHADA_VERIFY=1 or `torchada run --verify` turns it on)")
        return
    from torchada._core import trace
    from torchada.areas._verify import findings, mode, modpath

    torch = ctx.torch
    found = findings.Findings(which, settings.read("TORCHADA_VERIFY_FIRST"),
                              settings.read("TORCHADA_VERIFY_EVERY"))
    paths = modpath.ModulePaths(torch, trace._is_user_file)
    paths.install()
    ctx.on_revert(paths.remove)
    verifier = mode.Verifier(torch, torch._C._get_privateuse1_backend_name(), found, paths,
                             lambda: trace.call_site(2))
    dispatch = mode.dispatch_mode(torch, verifier)
    dispatch.__enter__()  # this thread's (the importing one's) mode stack, for the process
    ctx.on_revert(lambda: dispatch.__exit__(None, None, None), write=True)
    trace.add_section("verify", found.snapshot, found.summary_lines)
    ctx.on_revert(lambda: trace.remove_section("verify"))
    ctx.shared["verify"] = found
    ctx.note(lambda: "on (%s; first %d calls per op%s): %d calls compared, %d mismatches" % (
        which, found.first, ", then every %d" % found.every if found.every else "",
        sum(found.checked.values()), len(found.mismatches)))
