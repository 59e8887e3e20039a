"""The entity graph (who and what is related, with temporal validity) and ``memory.graph``."""
