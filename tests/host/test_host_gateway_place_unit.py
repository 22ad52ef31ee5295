"""Where the gateway socket goes, from the user's identity alone, and the folder checks both sides make —
attacked with what another user could leave there (their own folder, a symlink, a file, an open mode)."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from anyio.abc import SocketListener

from native_host.gateway import place
from native_host.gateway.agent_server import HostLink
from native_host.gateway.place import (
    ENV_RUNTIME_DIR,
    GatewaySocketError,
    bind_listening_socket,
    check_folder,
    prepare_folder,
    runtime_folders,
    socket_paths,
)
from native_host.gateway.wire import LineChannel
from native_host.process.jsonrpc import Request, result_message

pytestmark = pytest.mark.unit

OTHER_UID = 65534  # nobody


def as_other_user(path: Path) -> None:
    if os.getuid() != 0:
        raise AssertionError("giving a folder to another user needs root; run this tier as root")
    os.chown(path, OTHER_UID, OTHER_UID)


@pytest.fixture(autouse=True)
def no_override(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(ENV_RUNTIME_DIR, raising=False)
    yield


def test_linux_uses_loginds_folder_when_it_is_the_users_and_tmp_after_it(tmp_path: Path) -> None:
    run_user, tmp = tmp_path / "run-user", tmp_path / "tmp"
    (run_user / str(os.getuid())).mkdir(parents=True, mode=0o700)
    assert runtime_folders(run_user=run_user, tmp=tmp, platform="linux") == [
        run_user / str(os.getuid()) / "tabgate",
        tmp / f"tabgate-{os.getuid()}",
    ]


def test_without_logind_linux_uses_the_fixed_tmp_whatever_the_environment_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert runtime_folders(run_user=tmp_path / "absent", platform="linux") == [
        Path(f"/tmp/tabgate-{os.getuid()}")
    ]


def test_a_run_user_folder_of_someone_else_or_a_symlink_is_not_logind(tmp_path: Path) -> None:
    run_user = tmp_path / "run-user"
    run_user.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (run_user / str(os.getuid())).symlink_to(elsewhere)
    assert runtime_folders(run_user=run_user, tmp=tmp_path, platform="linux") == [
        tmp_path / f"tabgate-{os.getuid()}"
    ]
    (run_user / str(os.getuid())).unlink()
    (run_user / str(os.getuid())).mkdir()
    as_other_user(run_user / str(os.getuid()))
    assert runtime_folders(run_user=run_user, tmp=tmp_path, platform="linux") == [
        tmp_path / f"tabgate-{os.getuid()}"
    ]


def test_the_override_replaces_every_candidate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_RUNTIME_DIR, str(tmp_path / "mine"))
    assert runtime_folders(platform="linux") == [tmp_path / "mine"]


def test_a_new_folder_is_created_private(tmp_path: Path) -> None:
    folder = tmp_path / "tabgate-1"
    prepare_folder(folder)
    assert stat.S_IMODE(folder.lstat().st_mode) == 0o700
    check_folder(folder)


def test_an_open_folder_of_ours_is_tightened_by_the_host_but_refused_by_the_agent(tmp_path: Path) -> None:
    folder = tmp_path / "tabgate-1"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    with pytest.raises(GatewaySocketError, match="may be entered by other users"):
        check_folder(folder)  # the agent's side: it never changes what it did not create
    prepare_folder(folder)
    assert stat.S_IMODE(folder.lstat().st_mode) == 0o700


def test_a_symlink_planted_in_its_place_is_refused_and_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir(mode=0o755)
    target.chmod(0o755)
    folder = tmp_path / "tabgate-1"
    folder.symlink_to(target)
    for check in (prepare_folder, check_folder):
        with pytest.raises(GatewaySocketError, match="is not a folder"):
            check(folder)
    assert stat.S_IMODE(target.stat().st_mode) == 0o755  # not tightened through the link
    with pytest.raises(GatewaySocketError):
        bind_listening_socket(folder / "gateway.sock")
    assert list(target.iterdir()) == []


def test_a_dangling_symlink_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "tabgate-1"
    folder.symlink_to(tmp_path / "nowhere")
    with pytest.raises(GatewaySocketError, match="is not a folder"):
        prepare_folder(folder)
    assert not (tmp_path / "nowhere").exists()


def test_a_file_in_its_place_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "tabgate-1"
    folder.write_text("")
    with pytest.raises(GatewaySocketError, match="is not a folder"):
        prepare_folder(folder)


def test_a_folder_precreated_by_another_user_is_refused_on_both_sides(tmp_path: Path) -> None:
    folder = tmp_path / "tabgate-1"
    folder.mkdir(mode=0o700)
    as_other_user(folder)
    for check in (prepare_folder, check_folder):
        with pytest.raises(GatewaySocketError, match=f"belongs to uid {OTHER_UID}"):
            check(folder)
    with pytest.raises(GatewaySocketError):
        bind_listening_socket(folder / "gateway.sock")


def test_the_agent_finds_a_host_listening_at_a_later_candidate(monkeypatch: pytest.MonkeyPatch) -> None:
    """logind's folder appeared after the host started (so it listens in /tmp): the agent still finds it."""
    base = Path(tempfile.mkdtemp(prefix="tg-"))  # socket paths are limited to ~108 bytes
    try:
        (base / "run" / str(os.getuid())).mkdir(parents=True, mode=0o700)
        (base / "tmp").mkdir()
        monkeypatch.setattr(place, "RUN_USER", base / "run")
        monkeypatch.setattr(place, "FIXED_TMP", base / "tmp")
        first, second = socket_paths()
        assert first.parent == base / "run" / str(os.getuid()) / "tabgate"
        listening = bind_listening_socket(second)
        assert anyio.run(hello_through_agent_link, listening) == {"name": "agent", "version": "1"}
    finally:
        shutil.rmtree(base)


async def hello_through_agent_link(listening: socket.socket) -> dict[str, str]:
    async def on_change() -> None:
        pass

    listener = await SocketListener.from_socket(listening)
    link = HostLink(on_change)
    link.identify({"name": "agent", "version": "1"})
    async with listener, anyio.create_task_group() as group:
        group.start_soon(link.run)
        channel = LineChannel(await listener.accept())
        hello = await channel.receive()
        assert isinstance(hello, Request) and hello.method == "gateway/hello"
        await channel.send(result_message(hello.id, {"session": "agent-1"}))
        with anyio.fail_after(5):
            while not link.connected:
                await anyio.sleep(0.01)
        group.cancel_scope.cancel()
    return dict(hello.params["client"])
