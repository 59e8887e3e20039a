"""Kioko's algorithmic core. Depends on the Store protocol (``kioko_core.store``) and nothing of a driver."""
