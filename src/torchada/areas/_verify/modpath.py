"""The dotted path of the module whose forward is running (``model.layers.3.mlp``), from
global forward pre-hooks and forward hooks (installed only while verify is on).

A root module (one entered with no module running) is named after the variable the program
called it through, where one in the calling frame holds it, else its class; its submodules
by ``named_modules``. Per thread, as forward calls are."""
import sys
import threading
import weakref


class ModulePaths:
    def __init__(self, torch, is_user_file):
        self.torch = torch
        self.is_user_file = is_user_file
        self._local = threading.local()
        self._names = weakref.WeakKeyDictionary()  # root -> {id(module): path}
        self._handles = []

    def install(self):
        hooks = self.torch.nn.modules.module
        self._handles = [hooks.register_module_forward_pre_hook(self._enter),
                         hooks.register_module_forward_hook(self._leave, always_call=True)]

    def remove(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def _stack(self):
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def current(self):
        stack = self._stack()
        return stack[-1] if stack else None

    def _enter(self, module, args):
        stack = self._stack()
        try:
            if not stack:
                self._local.root = module
                path = self._root_names(module)[id(module)]
            else:
                root_names = self._names.get(self._local.root) or {}
                path = root_names.get(id(module)) or "%s.%s" % (stack[-1], type(module).__name__)
        except Exception:  # a path is a nicety: never fail a forward over it
            path = type(module).__name__
        stack.append(path)

    def _leave(self, module, args, output):
        stack = self._stack()
        if stack:
            stack.pop()

    def _root_names(self, root):
        names = self._names.get(root)
        if names is None:
            label = self._label(root)
            names = {id(m): (label + "." + n if n else label)
                     for n, m in root.named_modules(remove_duplicate=False)}
            self._names[root] = names
        return names

    def _label(self, root):
        frame = sys._getframe(3)
        while frame is not None and not self.is_user_file(frame.f_code.co_filename):
            frame = frame.f_back
        if frame is not None:
            for scope in (frame.f_locals, frame.f_globals):
                for name, value in scope.items():
                    if value is root and not name.startswith("_"):
                        return name
        return type(root).__name__
