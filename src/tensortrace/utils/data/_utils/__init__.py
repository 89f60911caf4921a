"""torch/utils/data/_utils: what the DataLoader's iterators use (collate)."""
