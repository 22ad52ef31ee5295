"""`browser_screenshot` of the whole page or of one element, through the debugger."""

from __future__ import annotations

from typing import Any

from core.browser.cdp import Command
from core.browser.context import PageContext
from core.browser.elements import gone_or, locate, verify
from core.browser.screenshot import BrowserScreenshotArgs
from core.errors import RespondToModel

IMAGE_LIMIT = 2 * 1024 * 1024
FULL_PAGE_MAX_PX = 10_000  # taller pages are cut here (the answer says so)


async def capture(ctx: PageContext, a: BrowserScreenshotArgs) -> dict[str, Any]:
    params: dict[str, Any] = {"format": a.format, "captureBeyondViewport": True}
    if a.quality is not None:
        params["quality"] = a.quality
    metrics = await ctx.cdp.run(a.tabId, [Command("Page.getLayoutMetrics")])
    layout = metrics.result(0, "page size")
    tab_id = metrics.state.tab_id
    if a.ref is not None:
        state, element = await locate(ctx, tab_id, ref=a.ref, selector=None)
        if element.session is not None:
            raise RespondToModel(
                f"{a.ref} is inside a frame from another site; take a fullPage screenshot instead"
            )
        boxes = await ctx.cdp.run(
            tab_id,
            [
                Command("DOM.scrollIntoViewIfNeeded", element.params),
                Command("DOM.getContentQuads", element.params),
                Command("Page.getLayoutMetrics"),
            ],
            keep_going=True,
        )
        verify(boxes, state, element)
        try:
            quads = boxes.result(1, "locate")["quads"]
        except RespondToModel as error:
            raise gone_or(element, error.message, "cannot capture") from None
        if not quads:
            raise RespondToModel(f"{a.ref} is not visible (it has no box on the page)")
        view = boxes.result(2, "page size")["cssVisualViewport"]
        xs, ys = quads[0][0::2], quads[0][1::2]
        params["clip"] = {
            "x": min(xs) + view["pageX"],
            "y": min(ys) + view["pageY"],
            "width": max(max(xs) - min(xs), 1),
            "height": max(max(ys) - min(ys), 1),
            "scale": 1,
        }
    else:
        size = layout["cssContentSize"]
        height = min(size["height"], FULL_PAGE_MAX_PX)
        params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": height, "scale": 1}
    shot = await ctx.cdp.run(tab_id, [Command("Page.captureScreenshot", params)])
    data = str(shot.result(0, "screenshot")["data"])
    if len(data) * 3 // 4 > IMAGE_LIMIT:
        raise RespondToModel(
            f"the screenshot is {len(data) * 3 // 4} bytes, over the 2 MiB budget: "
            "use format jpeg with a quality, "
            "or capture one element (ref)"
        )
    shot_result: dict[str, Any] = {"mimeType": f"image/{a.format}", "data": data, "tabId": tab_id}
    if a.fullPage and layout["cssContentSize"]["height"] > FULL_PAGE_MAX_PX:
        shot_result["cut"] = (
            f"the page is {layout['cssContentSize']['height']:.0f} px tall; cut at {FULL_PAGE_MAX_PX} px"
        )
    return shot_result
