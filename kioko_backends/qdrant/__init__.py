"""``qdrant://``, ``qdrant+local://`` (:mod:`.store`) and ``qdrant+edge://`` (:mod:`.edge`)."""
