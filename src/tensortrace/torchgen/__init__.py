"""torchgen: write the code that native_functions.yaml declares, as files a reader can open.

Mirrors PyTorch's `torchgen/` (gen.py, gen_python_functions.py...), which writes `Functions.h`,
`TensorBody.h`, `RegisterCPU.cpp`, `RegisterBackendSelect.cpp` and
`python_torch_functions_0.cpp` at build time. Here the output is Python under the `generated/`
folders of `aten/`, `csrc/` and `trace/`, checked in and shipped in the package:

    python -m tensortrace.torchgen           # regenerate every file
    python -m tensortrace.torchgen --check   # list the files that differ, exit 1 if any

It lives inside the package (as torchgen ships inside the torch wheel) because the runtime needs
it too: when the YAML has changed since the files were written, `loader` builds the same modules
in memory instead of importing stale ones (see Note [Stale generated files]).
"""
