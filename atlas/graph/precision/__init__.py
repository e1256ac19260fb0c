"""Precision as a measurement: a stratified sample of the graph's edges and `graph path` answers (`sample`), the
committed record of their verdicts read from the source (`record`), and the figures drawn from it (`tally`)."""
