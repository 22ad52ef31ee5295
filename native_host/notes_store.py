"""Notes kept in SQLite: the storage behind the bundled notes server."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    created TEXT NOT NULL
)
"""


@dataclass(frozen=True, slots=True)
class Note:
    id: int
    title: str
    body: str
    created: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class NoteStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # One connection, used from the event loop and worker threads; the lock serialises it.
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add(self, title: str, body: str) -> Note:
        created = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock:
            cursor = self._db.execute(
                "INSERT INTO notes (title, body, created) VALUES (?, ?, ?)", (title, body, created)
            )
        assert cursor.lastrowid is not None
        return Note(cursor.lastrowid, title, body, created)

    def get(self, note_id: int) -> Note | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, title, body, created FROM notes WHERE id = ?", (note_id,)
            ).fetchone()
        return Note(*row) if row else None

    def delete(self, note_id: int) -> bool:
        with self._lock:
            return self._db.execute("DELETE FROM notes WHERE id = ?", (note_id,)).rowcount > 0

    def search(self, query: str, limit: int) -> list[Note]:
        """Notes whose title or body contains `query` (case-insensitive), newest first."""
        pattern = "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with self._lock:
            rows = self._db.execute(
                "SELECT id, title, body, created FROM notes "
                "WHERE title LIKE ?1 ESCAPE '\\' OR body LIKE ?1 ESCAPE '\\' ORDER BY id DESC LIMIT ?2",
                (pattern, limit),
            ).fetchall()
        return [Note(*row) for row in rows]

    def page(self, after: int, limit: int) -> list[Note]:
        """Up to `limit` notes with an id above `after`, in id order (resource listing pages)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, title, body, created FROM notes WHERE id > ? ORDER BY id LIMIT ?", (after, limit)
            ).fetchall()
        return [Note(*row) for row in rows]
