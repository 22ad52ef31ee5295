"""`tabgate-host doctor`: checks every manifest location, the launcher, the interpreter, the log folder and
the config, tries to start each configured server, and says in plain words what to fix."""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TextIO

from ..config.identity import EXTENSION_ORIGIN, HOST_NAME
from ..config.loading import LoadedConfig, load_config
from ..gateway.place import ENV_RUNTIME_DIR
from .connect import (
    MCP_ARGS,
    SERVER_NAME,
    AgentFile,
    ConnectError,
    names_tabgate,
    parse,
    read_text,
    servers_of,
)
from .install import read_registry
from .locations import BROWSERS, Location, Platform, browser_location


@dataclass(frozen=True, slots=True)
class Finding:
    ok: bool
    what: str
    fix: str = ""

    def render(self) -> str:
        text = f"{'ok     ' if self.ok else 'PROBLEM'} {self.what}"
        return text + (f"\n        fix: {self.fix}" if self.fix else "")


REINSTALL = "run: tabgate-host install"


@dataclass(frozen=True, slots=True)
class Installed:
    """An installed launcher and the config it passes (None: the host's default config)."""

    launcher: Path
    config: Path | None


def all_locations(platform: Platform, home: PurePath, env: Mapping[str, str]) -> list[Location]:
    return [
        browser_location(platform, browser, system=system, home=home, env=env)
        for browser in BROWSERS
        for system in (False, True)
    ]


def _launcher_interpreter(launcher: Path) -> tuple[str | None, str | None]:
    """(interpreter, config) named in a launcher written by `install`."""
    text = launcher.read_text(encoding="utf-8", errors="replace")
    if launcher.suffix == ".bat":
        quoted = re.findall(r'"([^"]+)"', text)
        config = quoted[1] if len(quoted) > 1 and "--config" in text else None
        return (quoted[0] if quoted else None), config
    for line in text.splitlines():
        if line.startswith("exec "):
            words = shlex.split(line)
            config = words[words.index("--config") + 1] if "--config" in words else None
            return words[1], config
    return None, None


def check_manifest(location: Location) -> tuple[list[Finding], Installed | None]:
    manifest = Path(location.manifest)
    where = f"{location.browser or 'profile'}{' (system)' if location.system else ''}: {manifest}"
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [Finding(False, f"{where} cannot be read as JSON ({exc})", REINSTALL)], None
    findings = []
    if not isinstance(data, dict) or data.get("name") != HOST_NAME or data.get("type") != "stdio":
        return [Finding(False, f"{where} is not a valid {HOST_NAME} manifest", REINSTALL)], None
    origins = data.get("allowed_origins")
    if origins != [EXTENSION_ORIGIN]:
        findings.append(
            Finding(
                False,
                f"{where} allows {origins!r}, not the Tabgate extension ({EXTENSION_ORIGIN}); "
                "the browser will answer 'Access to the specified native messaging host is forbidden'",
                REINSTALL,
            )
        )
    launcher = Path(str(data.get("path", "")))
    if not launcher.is_absolute() or not launcher.is_file():
        findings.append(Finding(False, f"{where}: the launcher {launcher} does not exist", REINSTALL))
        return findings, None
    if os.name != "nt" and not os.access(launcher, os.X_OK):
        findings.append(
            Finding(False, f"{where}: the launcher {launcher} is not executable", f"chmod +x {launcher}")
        )
    interpreter, config = _launcher_interpreter(launcher)
    if interpreter is None or not Path(interpreter).is_file():
        findings.append(
            Finding(
                False,
                f"{where}: the launcher's Python {interpreter} is gone (was its virtualenv removed?)",
                "run `tabgate-host install` again with the Python you want the host to use",
            )
        )
    if not findings:
        findings.append(Finding(True, f"{where} (launcher {launcher}, Python {interpreter})"))
    return findings, Installed(launcher, Path(config) if config is not None else None)


def _misplaced(location: Location) -> list[Path]:
    """Where people put the manifest by mistake: a profile folder, or a misspelt folder name."""
    folder = Path(location.manifest).parent
    name = Path(location.manifest).name
    candidates = [
        folder.parent / "Default" / folder.name / name,
        folder.parent / "NativeMessagingHost" / name,
    ]
    return [path for path in candidates if path.is_file()]


def _rivals(location: Location) -> list[Path]:
    """Other manifests in the same folder that also let the Tabgate extension in."""
    folder = Path(location.manifest).parent
    rivals = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if path.name == Path(location.manifest).name:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and EXTENSION_ORIGIN in (data.get("allowed_origins") or []):
            rivals.append(path)
    return rivals


def check_locations(locations: Sequence[Location]) -> tuple[list[Finding], list[Installed]]:
    """Findings for every location, and the launchers found (whose configs doctor then checks)."""
    findings: list[Finding] = []
    installed: list[Location] = []
    launchers: list[Installed] = []
    for location in locations:
        manifest = Path(location.manifest)
        if location.registry is not None:
            registered = read_registry(location.registry)
            if registered is None:
                continue
            if Path(registered) != manifest:
                findings.append(
                    Finding(
                        False,
                        f"{location.registry.hive}\\{location.registry.path} points to {registered}, "
                        f"not {manifest}",
                        REINSTALL,
                    )
                )
        if manifest.is_file():
            installed.append(location)
            found, launcher = check_manifest(location)
            findings += found
            launchers += [launcher] if launcher is not None else []
        for wrong in _misplaced(location):
            findings.append(
                Finding(
                    False,
                    f"a manifest at {wrong} is in the wrong place: the browser reads {manifest}",
                    f"delete {wrong}, then {REINSTALL}",
                )
            )
        for rival in _rivals(location):
            findings.append(
                Finding(
                    False,
                    f"{rival} also claims the Tabgate extension; two manifests for one extension "
                    "confuse which host runs",
                    f"delete {rival} unless you need it",
                )
            )
    by_browser: dict[str | None, list[Location]] = {}
    for location in installed:
        by_browser.setdefault(location.browser, []).append(location)
    for browser, places in by_browser.items():
        if len(places) > 1:
            paths = " and ".join(str(p.manifest) for p in places)
            findings.append(
                Finding(
                    False, f"{browser}: {HOST_NAME} is installed twice ({paths})", "uninstall one of them"
                )
            )
    if not installed:
        findings.append(
            Finding(False, "the host is not installed for any browser", f"{REINSTALL} [--browser chrome|...]")
        )
    return findings, launchers


def check_log_dir(path: Path) -> Finding:
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        return Finding(
            False,
            f"the log folder {path} is not writable ({exc})",
            "fix its permissions, or set TABGATE_LOG_DIR",
        )
    return Finding(True, f"log folder {path}")


def configs_in_use(launchers: Sequence[Installed], default: Path) -> dict[Path, str]:
    """Each config the installed launchers make the host read, with why it is the one checked."""
    users: dict[Path, list[Installed]] = {}
    for launcher in launchers:
        users.setdefault(launcher.config or default, []).append(launcher)
    if not users:
        return {default: "the default config"}
    configs = {}
    for path, using in users.items():
        names = ", ".join(str(launcher.launcher) for launcher in using)
        passed = any(launcher.config is not None for launcher in using)
        configs[path] = f"passed by the launcher {names}" if passed else f"the default config of {names}"
    return configs


def check_config(path: Path, why: str) -> tuple[LoadedConfig, list[Finding]]:
    loaded = load_config(path)
    if not loaded.exists:
        return loaded, [
            Finding(
                False, f"no config at {path} ({why}): no MCP servers", REINSTALL + " (it writes a default)"
            )
        ]
    findings = [Finding(False, str(problem), f"edit {path}") for problem in loaded.problems]
    mode = stat.S_IMODE(path.stat().st_mode)
    if os.name != "nt" and mode & 0o077:
        findings.append(
            Finding(
                False,
                f"config {path} can be read by other users (mode {mode:04o}); it can hold secrets",
                f"chmod 600 {path}",
            )
        )
    if not findings:
        findings.append(Finding(True, f"config {path} ({why}): {len(loaded.servers)} server(s)"))
    return loaded, findings


def check_agent_entry(file: AgentFile, name: str, entry: object, script: Path | None) -> Finding:
    """One agent's server entry that names Tabgate: does it start this install's `tabgate-host mcp`?"""
    agent = file.agent
    where = f"{agent.title} ({file.path}): server {name!r}"
    fix = f"run: tabgate-host connect {agent.name}"
    if name != SERVER_NAME:  # connect rewrites only its own entry
        fix = f"remove {name!r} from {file.path}, then {fix}"
    if not isinstance(entry, dict):
        return Finding(False, f"{where} is not a server table", fix)
    launch = agent.launch(entry)
    command, args, env = launch.command, launch.args, launch.env
    command_path = Path(command) if isinstance(command, str) else None
    problems = []
    if command_path is None or not command_path.is_absolute() or not command_path.is_file():
        problems.append(f"runs {command!r}, which does not exist (was Tabgate moved or its .venv removed?)")
    elif script is not None and command_path.resolve() != script.resolve():
        problems.append(f"runs {command}, another install than this one ({script})")
    if args != list(MCP_ARGS):
        problems.append(f"passes {args!r} where `tabgate-host mcp` needs {list(MCP_ARGS)!r}")
    if isinstance(env, dict) and ENV_RUNTIME_DIR in env:
        problems.append(
            f"sets {ENV_RUNTIME_DIR}, so the agent looks for Tabgate where the host does not listen "
            "(the socket is found without any environment)"
        )
    if problems:
        return Finding(False, f"{where} {'; '.join(problems)}", fix)
    return Finding(True, f"{where} runs this install's tabgate-host mcp")


def check_agent_configs(files: Sequence[AgentFile], script: Path | None) -> list[Finding]:
    """Every known agent config that names Tabgate, checked; configs that do not exist are skipped."""
    findings = []
    for file in files:
        try:
            text = read_text(file.path)
            if text is None:
                continue
            servers = servers_of(file, parse(file, text))
        except ConnectError as exc:
            findings.append(
                Finding(
                    False, f"{file.agent.title}: {exc}", f"fix {file.path} (the agent cannot read it either)"
                )
            )
            continue
        findings += [
            check_agent_entry(file, name, entry, script)
            for name, entry in servers.items()
            if names_tabgate(file.agent, name, entry)
        ]
    if files and not findings:
        names = "|".join(file.agent.name for file in files)
        findings.append(
            Finding(True, f"no agent is set up to use Tabgate (to set one up: tabgate-host connect {names})")
        )
    return findings


async def check_servers(loaded: LoadedConfig, log_dir: Path, label: str = "") -> list[Finding]:
    """Start every enabled server as the host would, and report how each one fared."""
    from ..servers.manager import ConnectionManager
    from ..servers.status import StatusBoard

    board = StatusBoard(lambda _statuses: None)
    servers = [server for server in loaded.servers.values() if server.enabled]
    findings = []
    async with ConnectionManager(servers, board=board, log_dir=log_dir) as manager:
        manager.start_all()
        for connection in manager.all():
            await connection.wait_settled()
        for status in board.snapshot():
            name = status["name"]
            if status["status"] == "ready":
                findings.append(
                    Finding(True, f"server {name}{label}: ready, {status.get('tools', 0)} tool(s)")
                )
                continue
            error = status.get("error", "did not start")
            fix = f"see its log: {log_dir / 'servers' / (name + '.log')}"
            if status.get("auth") == "required":
                fix = "open the Tabgate popup and press Sign in beside it"
            elif "startup_timeout_sec" in error:
                fix = f"raise startup_timeout_sec under [mcp_servers.{name}], or {fix}"
            elif "command not found" in error:
                fix = f"install it, or give `command` as an absolute path under [mcp_servers.{name}]"
            findings.append(Finding(False, f"server {name}{label}: {error}", fix))
    return findings


def run_doctor(
    *,
    locations: Sequence[Location],
    config_path: Path,
    log_dir: Path,
    out: TextIO,
    start_servers: bool = True,
    agents: Sequence[AgentFile] = (),
    script: Path | None = None,
) -> int:
    """`config_path` is the default config: the one launchers that pass no `--config` make the host read.
    `agents`: the agent configs to check for Tabgate entries, against this install's `script`."""
    import anyio

    findings, launchers = check_locations(locations)
    findings.append(check_log_dir(log_dir))
    findings += check_agent_configs(agents, script)
    configs = configs_in_use(launchers, config_path)
    for path, why in configs.items():
        loaded, config_findings = check_config(path, why)
        findings += config_findings
        if start_servers and loaded.servers:
            label = f" (in {path})" if len(configs) > 1 else ""
            findings += anyio.run(check_servers, loaded, log_dir, label)
    for finding in findings:
        print(finding.render(), file=out)
    problems = sum(not finding.ok for finding in findings)
    print(f"{problems} problem(s) found" if problems else "everything looks right", file=out)
    return 1 if problems else 0
