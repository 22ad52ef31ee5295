"""The administrative subcommands: install, uninstall, doctor, config."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .config import write_default_config
from .install import current_platform, install_at, uninstall_at
from .locations import BROWSERS, Browser, Location, browser_location, user_data_dir_location
from .paths import default_config_path


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabgate-host",
        description="The Tabgate native messaging host. Browsers start it with the extension's origin as the "
        "first argument; these subcommands set it up.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, text in (
        ("install", "write the host manifest and launcher for your browsers"),
        ("uninstall", "remove what install wrote"),
    ):
        sub = commands.add_parser(name, help=text, description=text)
        sub.add_argument(
            "--browser",
            action="append",
            choices=[*BROWSERS, "all"],
            help="which browser (repeatable; default: every browser found for this user)",
        )
        sub.add_argument(
            "--user-data-dir",
            type=Path,
            metavar="DIR",
            help="a browser profile folder started with --user-data-dir=DIR",
        )
        sub.add_argument(
            "--system", action="store_true", help="the system-wide location (needs admin rights)"
        )
        if name == "install":
            sub.add_argument(
                "--config", type=Path, metavar="FILE", help="the config file the host should use"
            )
    return parser


def _locations(options: argparse.Namespace) -> list[Location]:
    if options.user_data_dir is not None:
        return [user_data_dir_location(options.user_data_dir.expanduser().absolute())]
    platform = current_platform()
    chosen: list[Browser] = (
        list(BROWSERS) if not options.browser or "all" in options.browser else options.browser
    )
    home = Path.home()
    import os

    locations = [
        browser_location(platform, b, system=options.system, home=home, env=os.environ) for b in chosen
    ]
    if options.browser or options.system:
        return locations
    # No --browser: only browsers this user has (their profile folder exists), else Chrome.
    found = [loc for loc in locations if Path(loc.manifest).parent.parent.is_dir()]
    return found or locations[:1]


def run_admin(args: list[str]) -> int:
    options = _parser().parse_args(args)
    if options.command == "install":
        config = options.config.expanduser().absolute() if options.config else None
        for location in _locations(options):
            for written in install_at(location, platform=current_platform(), config=config):
                print(written)
        config_file = config or default_config_path()
        if write_default_config(config_file, sys.executable):
            print(f"config: {config_file} (new, with the bundled notes server)")
        return 0
    if options.command == "uninstall":
        for location in _locations(options):
            for removed in uninstall_at(location):
                print(f"removed {removed}")
        return 0
    print(f"tabgate-host: {options.command} is not available yet", file=sys.stderr)
    return 1
