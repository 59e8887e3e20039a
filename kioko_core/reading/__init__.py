"""Reading a text once: the question of a recall, the memory being written, what each is about."""
