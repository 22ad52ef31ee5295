"""Config `roots` (contract §3): `~` expanded, each an existing folder, every problem naming the server, the
key and the path, a server with one not started (never half-applied); roots as percent-encoded `file://`
URIs."""

from __future__ import annotations

from pathlib import Path

import pytest

from native_host.config.loading import load_config
from native_host.servers.roots import as_roots

pytestmark = pytest.mark.unit


def test_roots_are_expanded_and_each_must_be_an_existing_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "notes").mkdir()
    (tmp_path / "file.txt").write_text("x")
    path = tmp_path / "config.toml"
    path.write_text(
        '[mcp_servers.good]\ncommand = "x"\nroots = ["~/notes", "/"]\n\n'
        '[mcp_servers.bad]\ncommand = "x"\n'
        f'roots = ["~/notes", "relative/dir", "{tmp_path}/gone", "~/file.txt", 7]\n'
    )
    loaded = load_config(path)
    assert loaded.servers["good"].roots == (str(tmp_path / "notes"), "/")
    assert "bad" not in loaded.servers and "bad" in loaded.invalid  # nothing of it is used
    assert [str(problem) for problem in loaded.problems] == [
        f"{path}: [mcp_servers.bad] roots.1: 'relative/dir' is not an absolute path (start it with / or ~)",
        f"{path}: [mcp_servers.bad] roots.2: '{tmp_path}/gone' does not exist: create the folder or remove "
        "it from `roots`",
        f"{path}: [mcp_servers.bad] roots.3: '~/file.txt' ({tmp_path}/file.txt) is not a folder: name a "
        "folder, or remove it from `roots`",
        f"{path}: [mcp_servers.bad] roots.4: must be a string, not an integer",
    ]


def test_no_roots_key_means_no_roots(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[mcp_servers.plain]\ncommand = "x"\n')
    assert load_config(path).servers["plain"].roots == ()


def test_roots_are_percent_encoded_file_uris_named_by_their_folder() -> None:
    listed = as_roots(("/home/ada/my notes", "/srv/ü#1?", "/"))
    assert [(str(root.uri), root.name) for root in listed.roots] == [
        ("file:///home/ada/my%20notes", "my notes"),
        ("file:///srv/%C3%BC%231%3F", "ü#1?"),
        ("file:///", "/"),
    ]
