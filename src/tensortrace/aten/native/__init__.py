"""at::native: the operator implementations, one module per ATen source file.

Importing this package registers every native function, meta and impl function, and every
CPU kernel (REGISTER_DISPATCH), so the code generator can find them by name.
"""

from tensortrace.aten.native import (  # noqa: F401 - imported for their registrations
    activation,
    activation_backward,
    binary_ops,
    binary_ops_extra,
    cat,
    copy,
    correlation,
    distributions,
    distributions_sampling,
    fill,
    histogram,
    identity_ops,
    indexing,
    integration,
    linalg_norms,
    linear_algebra,
    pow,
    range_factories,
    reduce_all_ops,
    reduce_minmax,
    reduce_ops,
    scalar,
    tensor_advanced_indexing,
    tensor_compare_extra,
    tensor_compare_pointwise,
    tensor_factories,
    tensor_factories_new,
    tensor_properties,
    tensor_shape,
    tensor_shape_adjoint,
    tensor_shape_inplace,
    type_properties,
    unary_ops,
    unary_ops_extra,
)
from tensortrace.aten.native.cpu import (  # noqa: F401
    activation_backward_kernel,
    binary_ops_extra_kernel,
    binary_ops_kernel,
    copy_kernel,
    distribution_kernels,
    distribution_sampling_kernels,
    fill_kernel,
    index_kernel,
    linalg_norms_kernel,
    pow_kernel,
    range_factories_kernel,
    reduce_all_ops_kernel,
    reduce_minmax_kernel,
    reduce_ops_kernel,
    tensor_compare_pointwise_kernel,
    unary_ops_extra_kernel,
    unary_ops_kernel,
)
from tensortrace.aten.native.cuda import copy as cuda_copy  # noqa: F401, E402 - CPU ones first
from tensortrace.aten.native.cuda import kernels, natives  # noqa: F401, E402
