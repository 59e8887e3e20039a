"""The Kioko service's clients: :class:`client.RemoteMemory` and :class:`async_client.AsyncRemoteMemory`."""
