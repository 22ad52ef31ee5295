// "Allow access to this site": page tools (page, dom, screenshot) need the user's grant for the active tab's
// site. The grant is an optional host permission, asked for here on a click (Chrome requires the gesture).
import { $, clear, el } from "./ui_dom.js";

async function activeSite() {
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  try {
    const url = new URL(tab?.url ?? "");
    return /^https?:$/.test(url.protocol) ? url.origin : null;
  } catch {
    return null;
  }
}

export async function renderSiteAccess() {
  const row = $("site-access");
  const origin = await activeSite();
  row.hidden = origin === null;
  if (origin === null) return;
  const pattern = `${origin}/*`;
  const granted = await chrome.permissions.contains({ origins: [pattern] });
  const toggle = async () => {
    if (granted) await chrome.permissions.remove({ origins: [pattern] });
    else await chrome.permissions.request({ origins: [pattern] });
    renderSiteAccess();
  };
  clear(
    row,
    el("span", { class: "muted" }, granted ? `Page tools can read ${origin}` : `Page tools cannot read ${origin}`),
    el("button", { type: "button", id: "site-access-toggle", onclick: toggle },
      granted ? "Remove access" : "Allow access to this site"),
  );
}
