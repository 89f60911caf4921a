"""at::native: the operator implementations, one module per ATen source file.

Importing this package registers every native function, meta and impl function, and every
CPU kernel (REGISTER_DISPATCH), so the code generator can find them by name.
"""

from tensortrace.aten.native import (  # noqa: F401 - imported for their registrations
    binary_ops,
    copy,
    distributions,
    tensor_factories,
    tensor_shape,
)
from tensortrace.aten.native.cpu import (  # noqa: F401
    binary_ops_kernel,
    copy_kernel,
    distribution_kernels,
)
