"""One reading of a web URL: the site (scheme, host, port) Chrome will use for it, by the WHATWG URL
standard, or a refusal where a reading could differ (contract §8.2).

Python's `urlsplit` and Chrome disagree on inputs such as `http://b.test\\@a.test/` (a.test to one, b.test to
the other), so a site decided by `urlsplit` is not the site the tab goes to. Here the scheme, authority and
host are read as the standard reads them; what a person or a naive reader could take for another site is
refused with why: backslashes before the query, credentials (`user@`), control characters, percent-encoded
hosts, a host not written right after `scheme://`, and non-ASCII hosts whose UTS-46 form is not certain
(`idna_host`). IPv4 forms (`0x7f.1`, `2130706433`), IPv6 and punycode are read exactly and spelled as
`URL.origin` spells them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from core.web.idna_host import HostRefused, domain_to_ascii
from core.web.ip_hosts import ends_in_a_number, ipv4, ipv6

# Chrome's own limit for a URL (url::kMaxURLChars); the host's is the DNS one.
MAX_URL_CHARS = 2 * 1024 * 1024
MAX_HOST_CHARS = 253
_DEFAULT_PORTS = {"http": 80, "https": 443}
# The standard strips C0 controls and spaces around a URL (so does this reading); the tabs and newlines it
# removes inside are refused here, as a host split by one reads as another to a person.
_AROUND = "".join(chr(c) for c in range(0x21))
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_PORT = re.compile(r"[0-9]*")
# A host once read: ASCII letters, digits, `-` and `_`, in non-empty labels (a final dot allowed).
_PLAIN_HOST = re.compile(r"[a-z0-9_\-]+(\.[a-z0-9_\-]+)*\.?")
_SHOWN = 120


def _clip(text: str, most: int = _SHOWN) -> str:
    """`text` as an error shows it: at most `most` characters of it."""
    return text if len(text) <= most else text[:most] + "…"


class UrlRefused(ValueError):
    """A URL Tabgate will not read (or not as a web page); `why` says what it must be ("must …")."""

    def __init__(self, url: str, why: str) -> None:
        super().__init__(f"url {why}, got {_clip(url)!r}")
        self.url = url
        self.why = why


@dataclass(frozen=True, slots=True)
class WebUrl:
    """An http(s) URL's site as Chrome reads it."""

    scheme: Literal["http", "https"]
    host: str  # ASCII: a domain, a dotted IPv4 address or a bracketed IPv6 address
    port: int | None  # None: the scheme's default

    @property
    def origin(self) -> str:
        """The site as `URL.origin` spells it: no credentials, no default port."""
        return f"{self.scheme}://{self.host}" + ("" if self.port is None else f":{self.port}")


def read_web_url(url: str, *, credentials: bool = False) -> WebUrl:
    """`url` read as Chrome reads it, if it is an http(s) URL whose site cannot be read two ways; UrlRefused
    with why otherwise. Credentials are refused unless `credentials` (a URL Chrome reports for a tab may carry
    them; they are read as the standard reads them, up to the last `@`)."""
    if len(url) > MAX_URL_CHARS:
        raise UrlRefused(url, f"must be at most {MAX_URL_CHARS} characters")
    text = url.strip(_AROUND)
    if _CONTROL.search(text):
        raise UrlRefused(
            url, "must not hold control characters (tabs, newlines, …): Chrome drops or refuses them"
        )
    scheme_match = _SCHEME.match(text)
    scheme = scheme_match.group(1).lower() if scheme_match else ""
    if scheme_match is None or scheme not in _DEFAULT_PORTS:
        raise UrlRefused(url, "must be an http(s) URL")
    after = text[scheme_match.end() :]
    head = re.split(r"[?#]", after, maxsplit=1)[0]
    if "\\" in head:
        raise UrlRefused(
            url,
            "must not have a backslash before its query: Chrome reads it as a slash, another site",
        )
    if not after.startswith("//"):
        raise UrlRefused(url, f"must be written as {scheme}://host/…")
    authority = re.split(r"[/?#]", after[2:], maxsplit=1)[0]
    if "@" in authority and not credentials:
        raise UrlRefused(
            url,
            "must not have credentials (user@ or user:password@) before its host: the site could be misread",
        )
    host_text, port_text = _split_port(url, authority.rpartition("@")[2])
    port = _port(url, port_text, _DEFAULT_PORTS[scheme])
    return WebUrl("https" if scheme == "https" else "http", _host(url, host_text), port)


def reported_url(url: str) -> WebUrl | None:
    """A URL as Chrome reports it (a tab's, a request's: it may carry credentials) read as a web URL, or None
    when it is not one or could be read two ways."""
    try:
        return read_web_url(url, credentials=True)
    except UrlRefused:
        return None


def reported_origin(url: str) -> str | None:
    """The origin of a URL as Chrome reports it, as URL.origin spells it; None as for `reported_url`."""
    read = reported_url(url)
    return None if read is None else read.origin


def _split_port(url: str, authority: str) -> tuple[str, str | None]:
    if authority.startswith("["):
        end = authority.find("]")
        if end == -1:
            raise UrlRefused(url, "must close its IPv6 host with ]")
        host, tail = authority[: end + 1], authority[end + 1 :]
        if tail and not tail.startswith(":"):
            raise UrlRefused(url, "must have only a port after its IPv6 host")
        return host, tail[1:] if tail else None
    host, colon, port = authority.partition(":")
    return host, port if colon else None


def _port(url: str, text: str | None, default: int) -> int | None:
    if text is None or text == "":
        return None
    if not _PORT.fullmatch(text):
        raise UrlRefused(url, f"must have a number as its port, not {_clip(text, 20)!r}")
    digits = text.lstrip("0") or "0"
    if len(digits) > 5 or int(digits) > 65535:
        raise UrlRefused(url, f"must have a port up to 65535, not {_clip(text, 20)}")
    return None if int(digits) == default else int(digits)


def _host(url: str, text: str) -> str:
    if text == "":
        raise UrlRefused(url, "must have a host")
    if text.startswith("["):
        address = ipv6(text[1:-1]) if text.endswith("]") else None
        if address is None:
            raise UrlRefused(url, f"must have a valid IPv6 address in brackets, not {_clip(text, 60)}")
        return address
    if len(text) > MAX_HOST_CHARS:
        raise UrlRefused(url, f"must have a host of at most {MAX_HOST_CHARS} characters")
    if "%" in text:
        raise UrlRefused(url, "must not percent-encode its host (%..): write the host plainly")
    try:
        host = domain_to_ascii(text)
    except HostRefused as refused:
        raise UrlRefused(url, str(refused)) from None
    if ends_in_a_number(host):
        address = ipv4(host)
        if address is None:
            raise UrlRefused(
                url, f"must have a valid IPv4 address where its host ends in a number, not {host!r}"
            )
        return address
    if len(host) > MAX_HOST_CHARS or not _PLAIN_HOST.fullmatch(host):
        raise UrlRefused(url, f"must have a plain host name (letters, digits, -, _ and dots), not {host!r}")
    return host
