"""The real module registers fake impls for aten::_fused_rmsnorm_forward/backward, ops that
exist only in Moore Threads' patched torch; on stock torch there is nothing to register."""
