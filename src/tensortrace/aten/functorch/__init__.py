"""functorch's C++ side: BatchedTensorImpl, the batching rules and the for-loop fallback.

Mirrors `aten/src/ATen/functorch/`. torch.func.vmap (tensortrace/func/_vmap.py) wraps its inputs
in BatchedTensorImpls at a new level (dynamic_layer.py); every operator on them reaches the
FuncTorchBatched kernel registered here (Note [vmap below autograd] in batched_tensor_impl.py).
"""
