"""Resource listings paged with buttons in the popup (issue 13): server-everything 2025.9.25 lists 100
resources, 10 a page; the popup's Next page runs the same listing with the server's cursor."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Playwright, expect

from tests.support.axe import assert_accessible
from tests.support.browser import Extension, launch_with_mcp
from tests.support.npm_packages import everything_server, node_path

pytestmark = pytest.mark.e2e

EVERYTHING_PAGED = "2025.9.25"  # 100 resources, 10 a page


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str]
) -> Iterator[Extension]:
    config = (
        f"[mcp_servers.everything]\ncommand = {json.dumps(node_path())}\n"
        f"args = [{json.dumps(str(everything_server(EVERYTHING_PAGED)))}]\nstartup_timeout_sec = 30\n"
    )
    folder = tmp_path_factory.mktemp("resource-pages")
    with launch_with_mcp(pw, folder, config, host_env, offering=frozenset({"mcp__everything__echo"})) as ext:
        yield ext


def test_a_resource_listing_pages_forward_and_back_to_the_first(ext: Extension) -> None:
    page = ext.context.new_page()
    page.set_viewport_size({"width": 480, "height": 600})
    page.goto(f"chrome-extension://{ext.id}/ui/popup.html")
    page.locator('button.tool[data-tool="list_mcp_resources"]').click()
    page.locator("#tool-form").get_by_role("textbox", name="server").fill("everything")
    page.get_by_role("button", name="Run", exact=True).click()
    result = page.locator("#result")
    expect(result).to_contain_text('"Resource 1"')
    expect(result).not_to_contain_text('"Resource 11"')
    result.get_by_role("button", name="Next page").click()
    expect(result).to_contain_text('"Resource 11"')
    expect(result).not_to_contain_text('"Resource 1"')
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert_accessible(page)
    result.get_by_role("button", name="First page").click()
    expect(result).to_contain_text('"Resource 1"')
    expect(result.get_by_role("button", name="First page")).to_have_count(0)
    page.close()
