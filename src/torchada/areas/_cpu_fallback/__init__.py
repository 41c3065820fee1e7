"""The CPU fallback's pieces: which operators torch_musa lacks (``opset``), the kernel that
runs one on CPU copies (``kernel``), and what was run that way (``stats``). The area module
``torchada/areas/cpu_fallback.py`` puts them together."""
