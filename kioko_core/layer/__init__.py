"""The memory layer: :class:`memory_layer.MemoryLayer` and the parts it is made of."""
