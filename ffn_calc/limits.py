"""Bounds every part of the package shares; no imports, so the CLI can read them at start."""

# The largest size any field or length may take: 2^40 (about 1.1 x 10^12), far beyond any real
# model (vocabularies reach 2^18, d_model 2^15, context lengths 2^24). It keeps every count an
# exact integer that the shares and human-readable summaries can also show as a float.
MAX_SIZE = 2**40
