"""TorchScript on MUSA: cuda string constants compile as musa, and the factory wrappers
resolve to the aten ops of the functions they wrap."""
import functools


def install_constants(ctx):
    """TorchScript builds devices in C++, past the torch.device constructor slot: a "cuda"
    literal in a Device position (``torch.device("cuda")``, ``device="cuda"``,
    ``.to("cuda")``) becomes its musa spelling before compilation. Any other string keeps
    its value, so scripted and eager code agree (``x.device.type == "cuda"`` is False in
    both on MUSA)."""
    import ast

    import torch.jit.frontend as frontend

    from torchada.areas._devices.names import musa_name

    def musa_constant(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = musa_name(node.value)
            if name is not None:
                return ast.copy_location(ast.Constant(value=name), node)
        return node

    class _DeviceConstants(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            func = node.func
            callee = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if node.args and (callee == "device" or
                              (callee == "to" and isinstance(func, ast.Attribute))):
                node.args[0] = musa_constant(node.args[0])
            for keyword in node.keywords:
                if keyword.arg == "device":
                    keyword.value = musa_constant(keyword.value)
            return node

    orig = frontend.parse_def

    def parse_def(fn):
        parsed = orig(fn)
        try:
            _DeviceConstants().visit(parsed.ast)
        except Exception:  # never break compilation over this
            pass
        return parsed

    functools.update_wrapper(parse_def, orig)
    ctx.setattr(frontend, "parse_def", parse_def)


def register_builtins(ctx, wrapped):
    """TorchScript resolves torch.zeros & co. by object identity: the wrappers must map to the
    same aten ops as the functions they wrap (else scripting tries to compile them)."""
    import torch.jit._builtins as builtins

    ids = {id(fn): "aten::" + name for name, fn in wrapped.items()}
    if builtins._builtin_table is not None:  # a table built later scans torch and finds them
        builtins._builtin_table.update(ids)

    def undo():
        table = builtins._builtin_table
        if table is not None:
            for key in ids:
                table.pop(key, None)

    ctx.on_revert(undo)
