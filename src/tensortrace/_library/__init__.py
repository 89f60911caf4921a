"""torch._library: what torch.library is built on (custom_op's CustomOpDef, the autograd
kernel it registers, schema inference from type hints). Mirrors `torch/_library/`."""
