"""One module per suite row: which implementations run each shape, their inputs and reference."""
