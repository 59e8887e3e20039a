"""Kioko's store drivers, one module per URL scheme. Each imports its own library lazily."""
