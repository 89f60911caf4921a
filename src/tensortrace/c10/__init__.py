"""c10: the core types every other layer builds on.

Mirrors `c10/core` and `c10/util`: intrusive refcounting, ScalarType/TypeMeta, Device,
DispatchKey(Set), the Allocator registry and the CPU allocator, DataPtr, StorageImpl, TensorImpl
and the TORCH_CHECK error macros.
"""
