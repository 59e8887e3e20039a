"""The memory graph: links as data (``links``), term statistics (``index``), pair scoring (``scoring``), the write
path's linker (``linker``), relinking stored memories (``relink``) and spreading activation (``activation``).

Who calls whom is in this folder's README.md. The package imports nothing itself: import the module you need
(``from kioko_core.linking.links import MemoryLink``).
"""
