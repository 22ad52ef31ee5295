"""`files/checkUpload`: upload paths resolved on disk by the host (symlinks followed) and accepted only as
regular files inside an allowed folder after resolution, answered with the host's private copies of the files
opened without following links; asked of a host started as Chrome starts it."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from conftest import HostDirs, running_host
from hostproc import HostError, HostProcess

from native_host.methods.upload_copies import KEEP, MAX_FILES, UploadCopies
from native_host.methods.upload_open import open_checked
from native_host.methods.uploads import UploadRefused

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


def copied(host: HostProcess, dirs: HostDirs, paths: list[str], folders: list[str]) -> list[tuple[str, str]]:
    """Each copy's name and text; every copy is in its own folder, private, under the host's data folder."""
    copies = [Path(copy) for copy in check(host, paths, folders)]
    for copy in copies:
        assert copy.is_relative_to(dirs.data / "uploads"), copy
        assert (
            stat.S_IMODE(copy.parent.stat().st_mode) == 0o700 and stat.S_IMODE(copy.stat().st_mode) == 0o600
        )
    assert len({copy.parent for copy in copies}) == len(copies)
    return [(copy.name, copy.read_text()) for copy in copies]


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
        # Accepted: copies of the resolved files, in order, with their names (through a symlinked folder, a
        # link inside, `..` inside).
        assert copied(
            host,
            host_dirs,
            [photo, f"{linked}/report.pdf", f"{allowed}/alias.png", f"{allowed}/sub/../report.pdf"],
            [allowed],
        ) == [
            ("photo.png", "photo"),
            ("report.pdf", "report"),
            ("photo.png", "photo"),
            ("report.pdf", "report"),
        ]
        # An allowed folder given through a symlink.
        assert copied(host, host_dirs, [report], [linked]) == [("report.pdf", "report")]
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


def test_what_is_uploaded_is_the_file_checked_even_when_its_folder_becomes_a_link_afterwards(
    host_dirs: HostDirs, disk: Path
) -> None:
    allowed, outside = disk / "allowed", disk / "outside"
    (outside / "report.pdf").write_text("SECRET")  # what a swapped folder would point at, same size
    with running_host(host_dirs, None) as host:
        host.initialize()
        [copy] = check(host, [str(allowed / "report.pdf")], [str(allowed)])
        # The folder is swapped for a link to another after the check, before Chrome reads the file.
        allowed.rename(disk / "allowed-was")
        allowed.symlink_to(outside)
        assert Path(copy).read_text() == "report"


def test_a_hard_link_in_the_folder_is_refused_and_a_fifo_or_device_never_reaches_the_page(
    host_dirs: HostDirs, disk: Path
) -> None:
    allowed = disk / "allowed"
    os.link(disk / "outside" / "id_rsa", allowed / "notes.txt")
    with running_host(host_dirs, None) as host:
        host.initialize()
        message = refusal(host, str(allowed / "notes.txt"), [str(allowed)])
        assert "has 2 hard links" in message and "outside the allowed folders" in message, message
        assert "is a fifo" in refusal(host, str(allowed / "pipe"), [str(allowed)])
        assert "a device" in refusal(host, "/dev/null", ["/dev"])


def test_a_path_changed_after_the_check_is_refused_by_the_walk_without_waiting_on_a_fifo(disk: Path) -> None:
    # The check's answer, then the disk changed before the host opens the file.
    checked = disk / "allowed" / "sub" / "photo.png"
    (disk / "allowed" / "sub").rename(disk / "allowed" / "sub-was")
    (disk / "allowed" / "sub").symlink_to(disk / "outside")
    (disk / "outside" / "photo.png").write_text("photo")
    with pytest.raises(UploadRefused, match=r"changed after it was checked: .*/allowed/sub is now a link"):
        open_checked("/asked/photo.png", checked)
    (disk / "allowed" / "sub").unlink()
    (disk / "allowed" / "sub").mkdir()
    (disk / "allowed" / "sub" / "photo.png").symlink_to(disk / "outside" / "photo.png")
    with pytest.raises(UploadRefused, match=r"photo.png is now a link"):
        open_checked("/asked/photo.png", checked)
    (disk / "allowed" / "sub" / "photo.png").unlink()
    os.mkfifo(checked)  # nobody writes to it: a blocking open would wait for ever
    outcome: list[BaseException] = []
    opening = threading.Thread(target=lambda: _refused(outcome, checked), daemon=True)
    opening.start()
    opening.join(10)
    assert not opening.is_alive(), "the open waited on the fifo"
    assert len(outcome) == 1 and "is a fifo" in str(outcome[0])


def _refused(outcome: list[BaseException], path: Path) -> None:
    try:
        open_checked(str(path), path)
    except UploadRefused as refused:
        outcome.append(refused)


def test_copies_are_bounded_kept_for_a_while_and_removed_when_no_host_holds_them(
    host_dirs: HostDirs, disk: Path
) -> None:
    allowed, report = str(disk / "allowed"), str(disk / "allowed" / "report.pdf")
    root = host_dirs.data / "uploads"
    small = UploadCopies(root, max_bytes=10)
    try:
        with pytest.raises(
            UploadRefused, match="is too big: the files of one upload are copied, at most 10 "
        ):
            small.copy([report, report], [allowed])
        with pytest.raises(UploadRefused, match=f"is one file too many: an upload takes at most {MAX_FILES}"):
            small.copy([report] * (MAX_FILES + 1), [allowed])
        first = small.copy([report], [allowed])
        later = [small.copy([report], [allowed]) for _ in range(KEEP)]
        assert not Path(first[0]).exists() and all(Path(copy[0]).exists() for copy in later)
        held = Path(later[0][0]).parents[2]  # this (running) host's folder
        (root / "host-crashed" / "0001-x" / "0").mkdir(parents=True)  # one a crashed host left
        with running_host(host_dirs, None) as host:
            host.initialize()
            [copy] = check(host, [report], [allowed])
            assert not (root / "host-crashed").exists() and held.exists()
        assert not Path(copy).exists()  # the host removed its copies when it exited
    finally:
        small.close()
    assert not held.exists()
