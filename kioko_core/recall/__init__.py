"""Recall: hybrid retrieval, spreading activation, and the context it writes within a budget."""
