"""Embedders: text to unit vectors, offline lexical by default, a semantic model when installed."""
