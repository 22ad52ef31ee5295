"""The client under test for the MCP conformance suite's client scenarios: a real `tabgate-host`, driven the
way the extension drives it.

The suite starts `python client.py <server url>` with MCP_CONFORMANCE_SCENARIO (and, for some scenarios,
MCP_CONFORMANCE_CONTEXT) set. This installs the host into a fresh folder with a config naming that server,
speaks native-messaging frames to it as the service worker does, and plays the person and the browser:
*Sign in* when the server says it needs one, `oauth/authorize` answered as chrome.identity would (the
authorization page's redirects followed to the extension's redirect URL), an elicitation form accepted as the
popup shows it (the schema's defaults filled in), every listed tool run once (or the calls the scenario's
context names, with their arguments). Exit 0 when every call was answered, the server's own JSON-RPC errors
included (a scenario server may list a tool it does not serve); the suite judges what the server saw.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parents[2])]  # hostproc beside the host tests; the repo

from hostproc import FakeBrowserSide, HostError, HostProcess, install  # noqa: E402

SERVER = "conformance"
# The client ID metadata document URL the suite's basic-cimd scenario expects as the client id.
CIMD_URL = "https://conformance-test.local/client-metadata.json"
SECRET_VAR = "CONFORMANCE_CLIENT_SECRET"
# Arguments for the suite's tools that take any; other tools are called with none.
ARGUMENTS: dict[str, dict[str, Any]] = {"add_numbers": {"a": 5, "b": 3}}
SERVER_UNAVAILABLE = -32000  # the host's own error: the server is down (not an answer from it)
SIGN_INS = 4  # the host gives up after 3 refusals in a row; one more click shows that it does


def log(message: str) -> None:
    print(f"[conformance client] {message}", file=sys.stderr, flush=True)


def server_table(url: str, scenario: str, context: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """The config's table for the scenario's server, and the host's extra environment."""
    lines = [f"[mcp_servers.{SERVER}]", f"url = {json.dumps(url)}", "startup_timeout_sec = 20"]
    env: dict[str, str] = {}
    if "client_id" in context:  # a client registered by hand (auth/pre-registration)
        lines.append(f"oauth_client_id = {json.dumps(context['client_id'])}")
        if "client_secret" in context:
            lines.append(f'oauth_client_secret_env_var = "{SECRET_VAR}"')
            env[SECRET_VAR] = context["client_secret"]
    if scenario == "auth/basic-cimd":
        lines.append(f"oauth_client_metadata_url = {json.dumps(CIMD_URL)}")
    return "\n".join(lines) + "\n", env


def follow_to_redirect(url: str) -> str:
    """What chrome.identity.launchWebAuthFlow gives back: the URL the page finally redirected to, once it
    reaches the redirect URI the authorization request names (the extension's chromiumapp.org address)."""
    import httpx2  # imported here: only sign-in scenarios need it, and each scenario starts this process

    [redirect_uri] = parse_qs(urlsplit(url).query)["redirect_uri"]
    with httpx2.Client(timeout=20) as http:
        for _ in range(10):
            if url.startswith(redirect_uri):
                return url
            answer = http.get(url)
            if answer.status_code not in (301, 302, 303, 307, 308):
                raise RuntimeError(f"{url}: HTTP {answer.status_code} {answer.text[:300]}")
            url = urljoin(url, answer.headers["location"])
    raise RuntimeError("the sign-in page never redirected back")


def form_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """What the popup's form sends when the person accepts it untouched: each field's default."""
    fields = schema.get("properties", {})
    return {name: spec["default"] for name, spec in fields.items() if "default" in spec}


def browser_answer(method: str, params: dict[str, Any]) -> Any:
    log(f"browser asked {method}")
    if method == "oauth/authorize":
        return {"redirectUrl": follow_to_redirect(params["url"])}
    if method == "elicitation/create":
        return {"action": "accept", "content": form_defaults(params.get("requestedSchema", {}))}
    raise RuntimeError(f"the browser side has no answer for {method}")


def status(host: HostProcess) -> dict[str, Any]:
    """The server's status once it has settled: ready, failed, or waiting for a sign-in."""
    servers = host.wait_servers(
        lambda s: s[SERVER]["status"] in ("ready", "failed") or s[SERVER].get("auth") == "required"
    )
    return servers[SERVER]


def signed_in_and_ready(host: HostProcess) -> None:
    """Click *Sign in* while the server waits for one (the host gives up on its own after 3 refusals); then
    the server must be ready."""
    now = status(host)
    for _ in range(SIGN_INS):
        if now.get("auth") != "required" or now["status"] == "ready":
            break
        log(f"server status {now}; signing in")
        host.call("servers/signIn", {"server": SERVER}, timeout=60)
        now = status(host)
    if now["status"] != "ready":
        raise RuntimeError(f"the server is {now['status']}: {now.get('error')}")


def with_sign_in(host: HostProcess, action: Callable[[], Any]) -> Any:
    """Run `action`; while the server asks for a sign-in after a refusal, click *Sign in* and run it again."""
    for _ in range(SIGN_INS):
        try:
            return action()
        except HostError as refused:
            if status(host).get("auth") != "required":
                raise
            log(f"refused ({refused.message}); signing in")
            host.call("servers/signIn", {"server": SERVER}, timeout=60)
    return action()


def planned_calls(tools: list[dict[str, Any]], context: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The calls the scenario's context names, else every listed tool with ARGUMENTS (or none)."""
    if "toolCalls" in context:
        return [(call["name"], call.get("arguments") or {}) for call in context["toolCalls"]]
    return [(tool["name"], ARGUMENTS.get(tool["name"], {})) for tool in tools]


def call_tool(host: HostProcess, name: str, arguments: dict[str, Any]) -> None:
    call = {"server": SERVER, "tool": name, "arguments": arguments}
    try:
        result = with_sign_in(host, lambda: host.call("tools/call", call))
    except HostError as error:
        if error.code == SERVER_UNAVAILABLE or (error.data or {}).get("server") != SERVER:
            raise
        log(f"{name} answered the server's error {error.code}: {error.message}")
        return
    log(f"{name} answered {json.dumps(result)[:300]}")


def drive(host: HostProcess, context: dict[str, Any]) -> None:
    host.initialize()
    signed_in_and_ready(host)
    tools = with_sign_in(host, lambda: host.call("tools/list", {"server": SERVER})["tools"])
    log(f"tools {[tool['name'] for tool in tools]}")
    for name, arguments in planned_calls(tools, context):
        call_tool(host, name, arguments)


def main(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT", "{}"))
    log(f"scenario {scenario} at {url}")
    with tempfile.TemporaryDirectory(prefix="tabgate-conformance-") as tmp:
        root = Path(tmp)
        config, env = server_table(url, scenario, context)
        (root / "config.toml").write_text(config)
        launcher = install(root / "profile", root / "config.toml")
        host_env = {"TABGATE_LOG_DIR": str(root / "logs"), "TABGATE_DATA_DIR": str(root / "data"), **env}
        host = HostProcess.start(launcher, env=host_env)
        side = FakeBrowserSide(host, browser_answer)
        try:
            drive(host, context)
        except (HostError, TimeoutError, RuntimeError) as exc:
            log(f"failed: {exc}")
            return 1
        finally:
            side.stop()
            host.close()
            for line in host.stderr.splitlines()[-20:]:
                log(f"host: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
