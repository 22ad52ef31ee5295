"""The tasks the host is following, kept in its data folder (`tasks.json`) so that the next host resumes a
task this one could not finish (killed, or stopped with the browser). Each change rewrites the file whole
and atomically; a file that cannot be read is set aside and the host starts without it, saying so."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..config.files import PRIVATE_FILE, FileWriteError, write_atomically

log = logging.getLogger(__name__)

MAX_KEPT: Final = 256  # tasks followed at once; the oldest is forgotten (and said so) past this
MAX_FILE_BYTES: Final = 1 << 20


class KeptTask(BaseModel):
    """One task being followed: enough to poll it again and to tell the person whose it is."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)
    server: str
    tool: str
    task_id: str = Field(alias="taskId")
    started_at: float = Field(alias="startedAt")  # ms since the epoch, when the call was made


KEPT: Final = TypeAdapter(list[KeptTask])


@dataclass
class TaskStore:
    path: Path
    _tasks: list[KeptTask] = field(default_factory=list)
    # Changes come from worker threads: each change and its write are one step, so no write is stale.
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def load(self) -> list[KeptTask]:
        """The tasks a previous host left unfinished."""
        try:
            data = self.path.read_bytes()[:MAX_FILE_BYTES]
        except FileNotFoundError:
            return []
        except OSError as exc:
            log.warning("cannot read the tasks file %s: %s; earlier tasks are not resumed", self.path, exc)
            return []
        try:
            self._tasks = KEPT.validate_json(data)[-MAX_KEPT:]
        except ValidationError as exc:
            aside = self.path.with_suffix(".unreadable")
            log.warning("the tasks file %s is unreadable (%s); set aside as %s", self.path, exc, aside.name)
            self.path.replace(aside)
        return list(self._tasks)

    def add(self, task: KeptTask) -> None:
        with self._lock:
            if len(self._tasks) >= MAX_KEPT:
                dropped = self._tasks.pop(0)
                log.warning("following over %d tasks: task %s is no longer kept", MAX_KEPT, dropped.task_id)
            self._tasks.append(task)
            self._write()

    def remove(self, task: KeptTask) -> None:
        with self._lock:
            if task in self._tasks:
                self._tasks.remove(task)
                self._write()

    def _write(self) -> None:
        try:
            write_atomically(self.path, KEPT.dump_json(self._tasks, by_alias=True), mode=PRIVATE_FILE)
        except FileWriteError as exc:
            log.warning("%s: a task running now will not be resumed if the host stops", exc)
