// What a tab shows and the site check every executor makes right before it acts (the rule is Python's:
// core/calls/tab_scope.py).
import { rpcError } from "./host.js";
import { ErrorCode } from "../error_codes.js";

// A URL's origin as URL.origin spells it (no credentials, no default port); "null" for one that has none.
export function originOf(url) {
  try {
    return new URL(url).origin;
  } catch {
    return "null"; // not a URL
  }
}

// What a tab shows, read as Python reads it (core/calls/chrome_tab.py `shown_url`): a tab that has not
// committed its first page has url "" and its destination in pendingUrl.
export function shownUrl(tab) {
  return tab.url || tab.pendingUrl || "";
}

// A call that carries `site` acts only on a tab that shows that site now, compared as Python says (`siteOf`,
// core/calls/tab_scope.py Guard): the origin of the tab's URL, or the URL itself. Otherwise PAGE_CHANGED with
// what the tab shows, and Python words the answer.
export function checkSite(tab, a) {
  if (a.site === undefined) return;
  const url = shownUrl(tab);
  const shown = a.siteOf === "origin" ? originOf(url) : url;
  if (shown !== a.site)
    throw rpcError(ErrorCode.PAGE_CHANGED, `tab ${tab.id} shows ${shown || "nothing"}`, { tabId: tab.id, shown });
}
