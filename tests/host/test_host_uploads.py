"""`files/checkUpload`: upload paths resolved on disk by the host (symlinks followed) and accepted only as
regular files inside an allowed folder after resolution; asked of a host started as Chrome starts it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import HostDirs, running_host
from hostproc import HostError, HostProcess

pytestmark = pytest.mark.host


@pytest.fixture
def disk(tmp_path: Path) -> Path:
    """allowed/ (a file, a sub-folder, a fifo, links in and out), allowed-not/ (it shares the prefix),
    outside/ (a secret), and linked/ → allowed/."""
    root = tmp_path.resolve()
    allowed = root / "allowed"
    (allowed / "sub").mkdir(parents=True)
    (allowed / "report.pdf").write_text("report")
    (allowed / "sub" / "photo.png").write_text("photo")
    os.mkfifo(allowed / "pipe")
    (root / "allowed-not").mkdir()
    (root / "allowed-not" / "x.txt").write_text("x")
    (root / "outside").mkdir()
    (root / "outside" / "id_rsa").write_text("secret")
    (allowed / "escape").symlink_to(root / "outside" / "id_rsa")
    (allowed / "alias.png").symlink_to(allowed / "sub" / "photo.png")
    (root / "linked").symlink_to(allowed)
    return root


def check(host: HostProcess, paths: list[str], folders: list[str]) -> list[str]:
    result: list[str] = host.call("files/checkUpload", {"paths": paths, "folders": folders})["paths"]
    return result


def refusal(host: HostProcess, path: str, folders: list[str]) -> str:
    with pytest.raises(HostError) as caught:
        check(host, [path], folders)
    assert caught.value.code == -32602 and repr(path) in caught.value.message, caught.value.message
    return caught.value.message


def test_uploads_are_resolved_on_disk_and_kept_inside_the_allowed_folders(
    host_dirs: HostDirs, disk: Path
) -> None:
    allowed, linked = str(disk / "allowed"), str(disk / "linked")
    report, photo = str(disk / "allowed" / "report.pdf"), str(disk / "allowed" / "sub" / "photo.png")
    with running_host(host_dirs, None) as host:
        host.initialize()
        # Accepted: answered resolved, in order (through a symlinked folder, a link inside, `..` inside).
        assert check(
            host,
            [photo, f"{linked}/report.pdf", f"{allowed}/alias.png", f"{allowed}/sub/../report.pdf"],
            [allowed],
        ) == [photo, report, photo, report]
        assert check(host, [report], [linked]) == [report]  # an allowed folder given through a symlink
        assert check(host, [], [allowed]) == []

        escape = refusal(host, f"{allowed}/escape", [allowed])
        assert "outside every allowed folder" in escape and str(disk / "outside" / "id_rsa") in escape
        assert "outside every allowed folder" in refusal(host, f"{allowed}/../outside/id_rsa", [allowed])
        assert "outside every allowed folder" in refusal(host, str(disk / "allowed-not" / "x.txt"), [allowed])
        assert "is a folder" in refusal(host, f"{allowed}/sub", [allowed])
        assert "is a fifo" in refusal(host, f"{allowed}/pipe", [allowed])
        assert "does not exist" in refusal(host, f"{allowed}/missing.txt", [allowed])
        assert "is not an absolute path" in refusal(host, "allowed/report.pdf", [allowed])
        assert "allowed: none" in refusal(host, report, [str(disk / "no-such-folder"), "relative"])
        # The first refused path is named, even after accepted ones.
        with pytest.raises(HostError) as caught:
            check(host, [report, f"{allowed}/escape", f"{allowed}/pipe"], [allowed])
        assert repr(f"{allowed}/escape") in caught.value.message and "pipe" not in caught.value.message
        with pytest.raises(HostError) as caught:
            host.call("files/checkUpload", {"paths": "/etc/passwd", "folders": [allowed]})
        assert caught.value.code == -32602 and "paths" in caught.value.message
