"""Accessibility checks of extension pages with axe-core (pinned, installed from the npm registry once).

The script is evaluated through the DevTools protocol, which the extension pages' CSP does not govern, so the
pages themselves ship nothing for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.support.npm_packages import npm_install

AXE_VERSION = "4.10.3"


def axe_violations(page: Page, *, context: str | None = None) -> list[dict[str, Any]]:
    """axe's violations on `page` (or inside the element matching the CSS selector `context`)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(npm_install("axe-core", AXE_VERSION, "axe.min.js").read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = page.evaluate(
        """async (context) => {
            const result = await axe.run(context ? document.querySelector(context) : document,
                                         { resultTypes: ["violations"] });
            return result.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map((n) => n.target.join(" ")),
            }));
        }""",
        context,
    )
    return found


def assert_accessible(page: Page, *, context: str | None = None) -> None:
    """Fails with every violation's rule, help text and elements when axe finds any."""
    violations = axe_violations(page, context=context)
    assert not violations, "axe violations:\n" + "\n".join(
        f"- {v['id']} ({v['impact']}): {v['help']} at {', '.join(v['nodes'])}" for v in violations
    )


ARTIFACTS = Path(__file__).resolve().parents[2] / "dist" / "artifacts"


def shoot_both_schemes(page: Page, name: str) -> None:
    """`page` in light and dark, kept as dist/artifacts/<name>-<scheme>.png, each with no axe violation."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{scheme}.png"), full_page=True)
        assert_accessible(page)
