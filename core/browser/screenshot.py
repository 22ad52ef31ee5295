"""`browser_screenshot`: the visible part of a tab as an image content item."""

from __future__ import annotations

import base64
import binascii
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from core.browser.fields import Ref, TabId
from core.browser.spec import BrowserToolSpec
from core.errors import RespondToModel
from core.items import InputImage, InputText
from core.output import FunctionOutput


class BrowserScreenshotArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["capture"] = Field(default="capture", description="capture the visible part of the tab.")
    tabId: TabId = None
    format: Literal["png", "jpeg"] = Field(default="png", description="Image format.")
    quality: int | None = Field(default=None, ge=0, le=100, description="jpeg only: 0–100.")
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


def screenshot_output(result: Any) -> FunctionOutput:
    try:
        capture = _Capture.model_validate(result)
        size = len(base64.b64decode(capture.data, validate=True))
    except (ValidationError, binascii.Error) as error:
        raise RespondToModel(f"browser_screenshot returned no usable image: {error}") from None
    summary = f"Screenshot of tab {capture.tabId} ({capture.mimeType}, {size} bytes)"
    if capture.cut is not None:
        summary += f"; {capture.cut}"
    image = InputImage(image_url=f"data:{capture.mimeType};base64,{capture.data}")
    return FunctionOutput(summary, content_items=(InputText(text=summary), image))


BROWSER_SCREENSHOT = BrowserToolSpec(
    name="browser_screenshot",
    description=(
        "Capture a tab (tabId, or the active tab) as an image: the visible part (the tab is brought to the "
        "front), the whole page (fullPage) or one element (ref from a snapshot). Needs the user's permission "
        "for the page's site."
    ),
    params=BrowserScreenshotArgs,
    supports_parallel=False,
    to_output=screenshot_output,
)
