// chrome.* executors for the browser tools. Python (core/browser) validates the arguments and decides what
// to do; this module performs exactly the call it is given and returns plain JSON.
import { rpcError } from "./host.js";

const TOOL_STORAGE_PREFIX = "tool:"; // browser_storage lives in its own namespace, apart from Tabgate's state

// ------------------------------------------------------------------ helpers

export function tabInfo(tab) {
  return {
    id: tab.id, windowId: tab.windowId, index: tab.index, url: tab.url ?? tab.pendingUrl ?? "",
    title: tab.title ?? "", active: tab.active, pinned: tab.pinned, status: tab.status,
  };
}

async function targetTab(tabId) {
  if (tabId !== undefined && tabId !== null) return chrome.tabs.get(tabId);
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (!tab) throw rpcError(-32602, "no active tab; pass tabId");
  return tab;
}

function waitForComplete(tabId, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      chrome.tabs.onUpdated.removeListener(listener);
      reject(rpcError(-32001, `tab ${tabId} did not finish loading within ${timeoutMs} ms`));
    }, timeoutMs);
    function listener(id, change, tab) {
      if (id === tabId && change.status === "complete") {
        clearTimeout(timer);
        chrome.tabs.onUpdated.removeListener(listener);
        resolve(tabInfo(tab));
      }
    }
    chrome.tabs.onUpdated.addListener(listener);
    chrome.tabs.get(tabId).then((tab) => {
      if (tab.status === "complete") listener(tabId, { status: "complete" }, tab);
    }, reject);
  });
}

// Page access needs the user's grant for that origin (optional host permission); say so and how, instead of
// Chrome's bare "Cannot access contents of url".
async function requirePageAccess(tab) {
  let origin;
  try {
    origin = new URL(tab.url).origin;
  } catch {
    throw rpcError(-32602, `tab ${tab.id} has no page Tabgate can read (url: ${tab.url || "none"})`);
  }
  if (!/^https?:/.test(origin)) throw rpcError(-32602, `Tabgate cannot read ${tab.url}: only http(s) pages`);
  const granted = await chrome.permissions.contains({ origins: [`${origin}/*`] });
  if (!granted) {
    throw rpcError(
      -32003,
      `Tabgate has no access to ${origin}. Grant it: open the Tabgate popup on that page and choose ` +
        `"Allow access to this site", or add the site under chrome://extensions → Tabgate → Site access.`,
      { origin, permission: `${origin}/*` },
    );
  }
}

async function inPage(tabId, func, args = []) {
  const tab = await targetTab(tabId);
  await requirePageAccess(tab);
  const [result] = await chrome.scripting.executeScript({ target: { tabId: tab.id }, func, args });
  if (result?.result?.error) throw rpcError(-32602, result.result.error);
  return result?.result;
}

// ------------------------------------------------------------------ functions run inside the page

function pageRead(what, maxChars) {
  const cut = (s) => (s.length > maxChars ? s.slice(0, maxChars) : s);
  switch (what) {
    case "title": return { title: document.title };
    case "url": return { url: location.href };
    case "text": return { text: cut(document.body?.innerText ?? ""), truncated: (document.body?.innerText ?? "").length > maxChars };
    case "html": return { html: cut(document.documentElement.outerHTML), truncated: document.documentElement.outerHTML.length > maxChars };
    case "links":
      return { links: [...document.querySelectorAll("a[href]")].slice(0, 1000).map((a) => ({ text: a.innerText.trim(), href: a.href })) };
    default: return { error: `unknown page read ${what}` };
  }
}

function pageDom(action, selector, value, options) {
  const el = selector ? document.querySelector(selector) : null;
  if (selector && !el && action !== "scroll") return { error: `no element matches ${selector}` };
  const describe = (e) => ({ tag: e.tagName.toLowerCase(), id: e.id || undefined, text: (e.innerText ?? "").slice(0, 200) });
  switch (action) {
    case "click":
      el.scrollIntoView({ block: "center" });
      el.click();
      return { clicked: describe(el) };
    case "type": {
      el.focus();
      const next = options.clear ? value : (el.value ?? "") + value;
      const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), "value")?.set;
      if (setter) setter.call(el, next); else el.textContent = next;
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
      return { typed: describe(el), value: el.value ?? el.textContent };
    }
    case "select": {
      if (el.tagName !== "SELECT") return { error: `${selector} is not a <select>` };
      const option = [...el.options].find((o) => o.value === value || o.text === value);
      if (!option) return { error: `${selector} has no option ${value}` };
      el.value = option.value;
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
      return { selected: option.value };
    }
    case "scroll":
      if (el) el.scrollIntoView({ block: "center" });
      else window.scrollTo(options.x ?? window.scrollX, options.y ?? window.scrollY);
      return { scrollX: window.scrollX, scrollY: window.scrollY };
    default:
      return { error: `unknown dom action ${action}` };
  }
}

function pageWaitFor(selector, timeoutMs) {
  return new Promise((resolve) => {
    const found = () => document.querySelector(selector);
    if (found()) return resolve({ found: true });
    const observer = new MutationObserver(() => {
      if (found()) {
        observer.disconnect();
        clearTimeout(timer);
        resolve({ found: true });
      }
    });
    observer.observe(document.documentElement, { childList: true, subtree: true, attributes: true });
    const timer = setTimeout(() => {
      observer.disconnect();
      resolve({ error: `no element matched ${selector} within ${timeoutMs} ms` });
    }, timeoutMs);
  });
}

// ------------------------------------------------------------------ the tools

const storageArea = (area) => chrome.storage[area];
const prefixed = (key) => TOOL_STORAGE_PREFIX + key;

const executors = {
  async browser_tab(a) {
    const pick = (...keys) => Object.fromEntries(keys.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
    switch (a.action) {
      case "query": return (await chrome.tabs.query(pick("url", "title", "active", "pinned", "windowId", "currentWindow"))).map(tabInfo);
      case "create": return tabInfo(await chrome.tabs.create(pick("url", "active", "pinned", "windowId")));
      case "close": await chrome.tabs.remove(a.tabId); return { closed: a.tabId };
      case "activate": return tabInfo(await chrome.tabs.update(a.tabId, { active: true }));
      case "update": return tabInfo(await chrome.tabs.update(a.tabId, pick("url", "active", "pinned")));
    }
  },

  async browser_navigation(a) {
    const tab = await targetTab(a.tabId);
    switch (a.action) {
      case "navigate": await chrome.tabs.update(tab.id, { url: a.url }); break;
      case "reload": await chrome.tabs.reload(tab.id); break;
      case "back": await chrome.tabs.goBack(tab.id); break;
      case "forward": await chrome.tabs.goForward(tab.id); break;
      case "current_url": return { tabId: tab.id, url: tab.url ?? "", status: tab.status };
      case "wait_for_load": return waitForComplete(tab.id, a.timeoutMs);
    }
    return a.waitForLoad ? waitForComplete(tab.id, a.timeoutMs) : tabInfo(await chrome.tabs.get(tab.id));
  },

  async browser_page(a) {
    return inPage(a.tabId, pageRead, [a.action, a.maxChars]);
  },

  async browser_dom(a) {
    if (a.action === "wait_for") return inPage(a.tabId, pageWaitFor, [a.selector, a.timeoutMs]);
    return inPage(a.tabId, pageDom, [a.action, a.selector ?? null, a.value ?? "", { clear: a.clear, x: a.x, y: a.y }]);
  },

  async browser_screenshot(a) {
    const tab = await targetTab(a.tabId);
    await requirePageAccess(tab);
    if (!tab.active) await chrome.tabs.update(tab.id, { active: true });
    const format = a.format ?? "png";
    const dataUrl = await chrome.tabs.captureVisibleTab(tab.windowId, { format, quality: a.quality });
    return { mimeType: `image/${format}`, data: dataUrl.slice(dataUrl.indexOf(",") + 1), tabId: tab.id };
  },

  async browser_storage(a) {
    const area = storageArea(a.area);
    switch (a.action) {
      case "get": {
        const got = await area.get(a.keys.map(prefixed));
        return Object.fromEntries(a.keys.filter((k) => prefixed(k) in got).map((k) => [k, got[prefixed(k)]]));
      }
      case "set":
        await area.set(Object.fromEntries(Object.entries(a.items).map(([k, v]) => [prefixed(k), v])));
        return { stored: Object.keys(a.items) };
      case "remove":
        await area.remove(a.keys.map(prefixed));
        return { removed: a.keys };
      case "keys": {
        const all = await area.get(null);
        return { keys: Object.keys(all).filter((k) => k.startsWith(TOOL_STORAGE_PREFIX)).map((k) => k.slice(TOOL_STORAGE_PREFIX.length)) };
      }
    }
  },
};

export async function executeBrowserTool(tool, args, timeoutMs = 30000) {
  const run = executors[tool];
  if (!run) throw rpcError(-32601, `no browser executor for ${tool}`);
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(rpcError(-32001, `${tool} timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const result = await Promise.race([run(args), timeout]);
    if (result === undefined) throw rpcError(-32602, `${tool}: unknown action ${args.action}`);
    return result;
  } catch (e) {
    throw e.rpc ? e : rpcError(-32603, `${tool} ${args.action}: ${e.message ?? e}`);
  } finally {
    clearTimeout(timer);
  }
}
