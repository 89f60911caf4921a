"""The attention operators (`aten/src/ATen/native/transformers/`)."""
