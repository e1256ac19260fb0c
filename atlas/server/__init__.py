"""The MCP face of atlas (`atlas mcp`): Model Context Protocol tools over atlas.query, for coding agents."""

from atlas.server.mcp import server

__all__ = ["server"]
