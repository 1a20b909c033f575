"""The asyncio WebSocket server: sessions, lobby, rooms, clocks and the store."""

__version__ = "0.1.0"
