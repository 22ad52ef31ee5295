"""`browser_screenshot`: a tab's visible part, whole page or one element as an image, through the debugger."""

from __future__ import annotations

import base64
import binascii
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, model_validator

from core.browser.context import PageContext
from core.browser.elements import gone_or, locate, verify
from core.browser.executor import Command
from core.browser.fields import Ref, TabId
from core.browser.masked_capture import masked_capture
from core.browser.tool_spec import BrowserToolSpec
from core.calls.errors import RespondToModel
from core.calls.items import InputImage, InputText
from core.calls.output import FunctionOutput


class BrowserScreenshotArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["capture"] = Field(default="capture", description="capture the tab as an image.")
    tabId: TabId = None
    format: Literal["png", "jpeg"] = Field(default="png", description="Image format.")
    quality: StrictInt | None = Field(default=None, ge=0, le=100, description="jpeg only: 0–100.")
    fullPage: bool = Field(default=False, description="The whole page, not only the visible part.")
    ref: Ref = None

    @model_validator(mode="after")
    def _quality_only_for_jpeg(self) -> Self:
        if self.quality is not None and self.format != "jpeg":
            raise ValueError("quality only applies when format is 'jpeg'")
        if self.fullPage and self.ref is not None:
            raise ValueError("give fullPage or ref, not both")
        return self


class _Capture(BaseModel):
    """What the service worker returns: base64 image data and its type."""

    mimeType: Literal["image/png", "image/jpeg"]
    data: str = Field(min_length=1)
    tabId: int
    cut: str | None = None  # a full-page capture of a very tall page says where it was cut
    masked: int = 0  # frames painted over: Tabgate has no access to their sites


def screenshot_output(result: Any) -> FunctionOutput:
    try:
        capture = _Capture.model_validate(result)
        size = len(base64.b64decode(capture.data, validate=True))
    except (ValidationError, binascii.Error) as error:
        raise RespondToModel(f"browser_screenshot returned no usable image: {error}") from None
    summary = f"Screenshot of tab {capture.tabId} ({capture.mimeType}, {size} bytes)"
    if capture.masked:
        summary += (
            f"; {capture.masked} frame(s) of sites Tabgate has no access to are painted over in grey "
            "(grant them to see inside)"
        )
    if capture.cut is not None:
        summary += f"; {capture.cut}"
    image = InputImage(image_url=f"data:{capture.mimeType};base64,{capture.data}")
    return FunctionOutput(summary, content_items=(InputText(text=summary), image))


BROWSER_SCREENSHOT = BrowserToolSpec(
    name="browser_screenshot",
    description=(
        "Capture a tab (tabId, or the active tab) as an image: the visible part, the whole page "
        "(fullPage) or one element (ref from a snapshot). A background tab stays in the background. Needs "
        "the user's permission for the page's site."
    ),
    params=BrowserScreenshotArgs,
    supports_parallel=False,
    to_output=screenshot_output,
)


IMAGE_LIMIT = 2 * 1024 * 1024
FULL_PAGE_MAX_PX = 10_000  # taller pages are cut here (the answer says so)


async def _element_clip(ctx: PageContext, tab_id: int, ref: str) -> dict[str, Any]:
    state, element = await locate(ctx, tab_id, ref=ref, selector=None)
    if element.session is not None:
        raise RespondToModel(f"{ref} is inside a frame from another site; take a fullPage screenshot instead")
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
        raise RespondToModel(f"{ref} is not visible (it has no box on the page)")
    view = boxes.result(2, "page size")["cssVisualViewport"]
    xs, ys = quads[0][0::2], quads[0][1::2]
    return {
        "x": min(xs) + view["pageX"],
        "y": min(ys) + view["pageY"],
        "width": max(max(xs) - min(xs), 1),
        "height": max(max(ys) - min(ys), 1),
        "scale": 1,
    }


async def capture(ctx: PageContext, a: BrowserScreenshotArgs) -> dict[str, Any]:
    """Every capture goes through the debugger, on the tab itself: a background tab stays in the background
    (reading never changes the browser) and a grant for the page's site is enough. A frame of a site Tabgate
    has no access to is painted over, as the page's outline names it without showing it."""
    params: dict[str, Any] = {"format": a.format, "captureBeyondViewport": True}
    if a.quality is not None:
        params["quality"] = a.quality
    metrics = await ctx.cdp.run(a.tabId, [Command("Page.getLayoutMetrics")])
    layout = metrics.result(0, "page size")
    tab_id = metrics.state.tab_id
    if a.ref is not None:
        params["clip"] = await _element_clip(ctx, tab_id, a.ref)
    elif a.fullPage:
        size = layout["cssContentSize"]
        height = min(size["height"], FULL_PAGE_MAX_PX)
        params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": height, "scale": 1}
    else:  # the visible part, where the page is scrolled to
        view = layout["cssVisualViewport"]
        params["clip"] = {"x": view["pageX"], "y": view["pageY"], "width": view["clientWidth"],
                          "height": view["clientHeight"], "scale": 1}  # fmt: skip
    shot = await masked_capture(ctx, tab_id, params, full_page=a.fullPage)
    data = shot.data
    if shot.masks:
        data = await ctx.cdp.mask(data, f"image/{a.format}", a.quality, params["clip"]["width"], shot.masks)
    if len(data) * 3 // 4 > IMAGE_LIMIT:
        raise RespondToModel(
            f"the screenshot is {len(data) * 3 // 4} bytes, over the 2 MiB budget: "
            "use format jpeg with a quality, or capture one element (ref)"
        )
    shot_result: dict[str, Any] = {"mimeType": f"image/{a.format}", "data": data, "tabId": tab_id}
    if shot.masks:
        shot_result["masked"] = len(shot.masks)
    if a.fullPage and layout["cssContentSize"]["height"] > FULL_PAGE_MAX_PX:
        shot_result["cut"] = (
            f"the page is {layout['cssContentSize']['height']:.0f} px tall; cut at {FULL_PAGE_MAX_PX} px"
        )
    return shot_result
