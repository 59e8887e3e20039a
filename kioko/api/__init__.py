"""What every surface of Kioko shares: the operations table (:mod:`.operations`), the wire codecs
(:mod:`.wire`), the typed errors a service answers (:mod:`.errors`), API keys (:mod:`.auth`), export and import
(:mod:`.exchange`) and the webhook records and guard. No web framework is imported here: the HTTP clients, the
CLI and the MCP server use these with httpx alone; :mod:`kioko.http` serves them.
"""
