"""The administrative subcommands: install, uninstall, doctor, config, connect."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..config.files import FileWriteError
from ..config.loading import write_default_config
from ..config.paths import default_config_path, log_dir
from .connect import AGENTS, AgentFile, ConnectError, agent_files, host_script, run_connect
from .install import current_platform, install_at, uninstall_at
from .locations import BROWSERS, Browser, Location, browser_location, user_data_dir_location


def _selectors(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--browser",
        action="append",
        choices=[*BROWSERS, "all"],
        help="which browser (repeatable; default: every browser this user has)",
    )
    sub.add_argument(
        "--user-data-dir",
        type=Path,
        metavar="DIR",
        help="a browser profile folder started with --user-data-dir=DIR",
    )
    sub.add_argument("--system", action="store_true", help="the system-wide location (needs admin rights)")


def _config_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="the config file (default: $TABGATE_CONFIG, else the user's)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabgate-host",
        description="The Tabgate native messaging host. Browsers start it with the extension's origin as the "
        "first argument; these subcommands set it up.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    install = commands.add_parser("install", help="write the host manifest and launcher for your browsers")
    _selectors(install)
    _config_option(install)
    uninstall = commands.add_parser("uninstall", help="remove what install wrote")
    _selectors(uninstall)
    doctor = commands.add_parser("doctor", help="check the installation and the configured servers")
    doctor.add_argument("--user-data-dir", type=Path, action="append", default=[], metavar="DIR")
    _config_option(doctor)
    config = commands.add_parser("config", help="the MCP server config: path, show, check, import FILE")
    actions = config.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, text in (
        ("path", "print the config file's path"),
        ("show", "print the config with secrets redacted"),
        ("check", "validate the config"),
    ):
        _config_option(actions.add_parser(name, help=text))
    importing = actions.add_parser(
        "import", help="add servers from a Claude Desktop / Cursor JSON or codex TOML"
    )
    importing.add_argument("file", type=Path)
    _config_option(importing)
    connect = commands.add_parser(
        "connect",
        help=f"add Tabgate to an agent's MCP config ({', '.join(agent.title for agent in AGENTS.values())})",
    )
    connect.add_argument("agent", choices=list(AGENTS))
    connect.add_argument("--print", action="store_true", dest="show", help="show the change, write nothing")
    connect.add_argument("--remove", action="store_true", help="take Tabgate out of that agent's config")
    return parser


def _locations(options: argparse.Namespace) -> list[Location]:
    if options.user_data_dir is not None:
        return [user_data_dir_location(options.user_data_dir.expanduser().absolute())]
    platform = current_platform()
    chosen: list[Browser] = (
        list(BROWSERS) if not options.browser or "all" in options.browser else options.browser
    )
    home = Path.home()
    locations = [
        browser_location(platform, b, system=options.system, home=home, env=os.environ) for b in chosen
    ]
    if options.browser or options.system:
        return locations
    # No --browser: the browsers this user has (their profile folder exists), else Chrome.
    found = [loc for loc in locations if Path(loc.manifest).parent.parent.is_dir()]
    return found or locations[:1]


def _config_file(options: argparse.Namespace) -> Path:
    given: Path | None = options.config
    return given.expanduser().absolute() if given is not None else default_config_path()


def _connect(options: argparse.Namespace) -> int:
    platform = current_platform()
    if platform == "win32":
        print("tabgate-host connect: agents cannot reach Tabgate on Windows yet (no pipe)", file=sys.stderr)
        return 1
    agent = AGENTS[options.agent]
    file = AgentFile(agent, agent.where(platform, Path.home(), os.environ))
    return run_connect(file, remove=options.remove, show=options.show, out=sys.stdout, err=sys.stderr)


def run_admin(args: list[str]) -> int:
    options = _parser().parse_args(args)
    try:
        return _run(options)
    except FileWriteError as exc:  # nothing half-written: say which file and why
        print(f"tabgate-host: {exc}", file=sys.stderr)
        return 1


def _run(options: argparse.Namespace) -> int:
    if options.command == "install":
        config = options.config.expanduser().absolute() if options.config else None
        for location in _locations(options):
            for written in install_at(location, platform=current_platform(), config=config):
                print(written)
        config_file = _config_file(options)
        if write_default_config(config_file, sys.executable):
            print(f"config: {config_file} (new, with the bundled notes server)")
        return 0
    if options.command == "uninstall":
        for location in _locations(options):
            for removed in uninstall_at(location):
                print(f"removed {removed}")
        return 0
    if options.command == "connect":
        return _connect(options)
    if options.command == "doctor":
        from .doctor import all_locations, run_doctor

        locations = all_locations(current_platform(), Path.home(), os.environ)
        locations += [user_data_dir_location(d.expanduser().absolute()) for d in options.user_data_dir]
        try:
            script: Path | None = host_script()
        except ConnectError:
            script = None  # doctor then checks only that the agents' commands exist
        return run_doctor(
            locations=locations,
            config_path=_config_file(options),
            log_dir=log_dir(),
            out=sys.stdout,
            agents=agent_files(current_platform(), Path.home(), os.environ),
            script=script,
        )
    from . import config_cli

    path = _config_file(options)
    if options.action == "path":
        return config_cli.config_path(path)
    if options.action == "show":
        return config_cli.config_show(path)
    if options.action == "check":
        return config_cli.config_check(path)
    return config_cli.config_import(options.file.expanduser().absolute(), path)
