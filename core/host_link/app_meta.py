"""MCP Apps (`io.modelcontextprotocol/ui`, spec 2026-01-26), what is decided about them: a tool's `_meta.ui`
checked, who may see and call the tool (`visibility`), and the Content-Security-Policy a View runs under.

A server's `_meta.ui` is untrusted: a CSP domain that is not a plain scheme://host[:port] source is dropped,
never passed on, so the policy can only be as wide as the sources it names (contract §10)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from core.calls.validation import format_validation_error

log = logging.getLogger(__name__)

APP_MIME_TYPE: Final = "text/html;profile=mcp-app"
MAX_DOMAINS: Final = 32  # per list: a policy is for people to read too
# A CSP source Tabgate passes on: a scheme, a host (optionally `*.` for its subdomains) and a port.
_SOURCE: Final = re.compile(r"^(https|http|wss|ws)://(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:[0-9]{1,5})?$")

type Visibility = Literal["model", "app"]


class UiCsp(BaseModel):
    """`_meta.ui.csp`: the domains a View may reach, by what for."""

    model_config = ConfigDict(extra="ignore")

    connectDomains: list[str] = Field(default_factory=list)
    resourceDomains: list[str] = Field(default_factory=list)
    frameDomains: list[str] = Field(default_factory=list)
    baseUriDomains: list[str] = Field(default_factory=list)


class ToolUi(BaseModel):
    """A tool's `_meta.ui`: its View's `ui://` resource and where the tool is offered (both by default)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    resourceUri: str
    visibility: tuple[Visibility, ...] = ("model", "app")

    @field_validator("resourceUri")
    @classmethod
    def _ui_scheme(cls, uri: str) -> str:
        if not uri.startswith("ui://") or len(uri) > 2048:
            raise ValueError("must be a ui:// URI of at most 2048 characters")
        return uri


def read_tool_ui(raw: Any, tool: str) -> ToolUi | None:
    """The checked `_meta.ui` of `tool`; None (the tool stays, without a View) when absent or invalid."""
    if raw is None:
        return None
    try:
        return ToolUi.model_validate(raw)
    except ValidationError as error:
        log.warning("ignoring the _meta.ui of %s: %s", tool, format_validation_error(error))
        return None


def ui_of(tool: Mapping[str, Any]) -> ToolUi | None:
    """The `ui` of an offered tool entry (core/tools/registry.py puts the checked one there)."""
    raw = tool.get("ui")
    return ToolUi.model_validate(raw) if isinstance(raw, dict) else None


def offered_to_agents(tool: Mapping[str, Any]) -> bool:
    """A tool whose visibility lacks "model" is for its App alone: agents are not offered it."""
    ui = ui_of(tool)
    return ui is None or "model" in ui.visibility


def callable_by_app(tool: Mapping[str, Any]) -> bool:
    """A tool whose visibility lacks "app" is refused to a View (a tool without `_meta.ui` has both)."""
    ui = ui_of(tool)
    return ui is None or "app" in ui.visibility


# --- the View's Content-Security-Policy ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ViewPolicy:
    csp: str
    # The proxy page's own addition: its frame-src holds every navigation of the View's frame, also one the
    # View starts itself (which would otherwise leave the View's policy behind with its document).
    proxy: str
    dropped: tuple[str, ...]  # sources the server named that are not passed on


def _sources(domains: Iterable[str], dropped: list[str]) -> list[str]:
    kept: list[str] = []
    for domain in list(domains)[:MAX_DOMAINS]:
        source = domain.strip().lower() if isinstance(domain, str) else ""
        if _SOURCE.match(source) and source not in kept:
            kept.append(source)
        else:
            dropped.append(str(domain)[:200])
    return kept


def _directive(name: str, base: list[str], extra: list[str], empty: str = "'none'") -> str:
    values = base + extra
    return f"{name} {' '.join(values) if values else empty}"


def view_policy(raw_csp: Any) -> ViewPolicy:
    """The CSP for a View from its resource's `_meta.ui.csp` (the spec's default without one)."""
    try:
        csp = UiCsp.model_validate(raw_csp) if raw_csp is not None else UiCsp()
    except ValidationError as error:
        log.warning("ignoring an invalid _meta.ui.csp: %s", format_validation_error(error))
        csp = UiCsp()
    dropped: list[str] = []
    resources = _sources(csp.resourceDomains, dropped)
    connect = _sources(csp.connectDomains, dropped)
    frames = _sources(csp.frameDomains, dropped)
    bases = _sources(csp.baseUriDomains, dropped)
    directives = [
        "default-src 'none'",
        _directive("script-src", ["'self'", "'unsafe-inline'"], resources),
        _directive("style-src", ["'self'", "'unsafe-inline'"], resources),
        _directive("img-src", ["'self'", "data:"], resources),
        _directive("font-src", ["'self'"], resources),
        _directive("media-src", ["'self'", "data:"], resources),
        _directive("connect-src", [], connect),
        _directive("frame-src", [], frames),
        _directive("base-uri", [], bases),
        "form-action 'none'",
        "object-src 'none'",
    ]
    return ViewPolicy("; ".join(directives), _directive("frame-src", [], frames), tuple(dropped))


def _attribute(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def view_document(html: str, policy: ViewPolicy) -> str:
    """The View's document for the sandbox's inner frame: its policy first, as a meta element that no later
    markup can loosen (a second policy only adds restrictions)."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{_attribute(policy.csp)}">'
    return f"<!doctype html>{meta}{html}"
