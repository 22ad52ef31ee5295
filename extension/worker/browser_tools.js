// chrome.* executors for the browser tools. Python (core/browser) validates the arguments and decides what
// to do, which pages a tool may touch included; this module performs exactly the call it is given (the
// options chrome.* takes, the storage keys, the time limit all come with it) and returns plain JSON. A call that carries `site` runs only if the tab still shows that site right before the chrome.*
// call (Python checked the tab; the page may have moved since).
import { rpcError } from "./host.js";
import { guardTabs, openDialog, readBuffer, runCommands, seenCommit } from "./debugger.js";
import { checkSite, originOf, shownUrl } from "./tab_site.js";
import { ErrorCode } from "../error_codes.js";
import { restoreStopped } from "./nav_hold.js";

// ------------------------------------------------------------------ helpers

// Chrome's fields of a tab the tools answer with, as Chrome has them: Python reads which URL it shows and
// makes the answer (core/calls/chrome_tab.py).
function tabFields(tab) {
  const { id, windowId, index, url, pendingUrl, title, active, pinned, status } = tab;
  return { id, windowId, index, url, pendingUrl, title, active, pinned, status };
}

async function targetTab(tabId) {
  if (tabId !== undefined && tabId !== null) return chrome.tabs.get(tabId);
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (!tab) throw rpcError(ErrorCode.INVALID_PARAMS, "no active tab; pass tabId");
  return tab;
}

// Follows one tab until `finish` is called, or `timeoutMs` passes. onChange(change, tab) gets each onUpdated
// change, and every `pollMs` (Python's, core/browser/navigation.py TIMING) the polled state: {status}, plus
// {url} when it differs from the URL last seen (`url` is the one to start from).
function watchTab(tabId, { timeoutMs, pollMs, url, onChange }, resolve, reject) {
  let settled = false;
  let lastUrl = url;
  const timers = [];
  const finish = (ok, value) => {
    if (settled) return;
    settled = true;
    timers.forEach(clearTimeout);
    clearInterval(poll);
    chrome.tabs.onUpdated.removeListener(updated);
    chrome.tabs.onRemoved.removeListener(removed);
    (ok ? resolve : reject)(value);
  };
  const closed = () => finish(false, rpcError(ErrorCode.TIMED_OUT, `tab ${tabId} was closed while loading`));
  const seen = (change, tab) => {
    if (settled) return;
    lastUrl = tab.url;
    onChange(change, tab);
  };
  const updated = (id, change, tab) => {
    if (id === tabId) seen(change, tab);
  };
  const removed = (id) => {
    if (id === tabId) closed();
  };
  const check = () =>
    chrome.tabs.get(tabId).then((tab) => {
      seen(tab.url !== lastUrl ? { status: tab.status, url: tab.url } : { status: tab.status }, tab);
    }, closed);
  chrome.tabs.onUpdated.addListener(updated);
  chrome.tabs.onRemoved.addListener(removed);
  const poll = setInterval(check, pollMs);
  const after = (ms, fn) => timers.push(setTimeout(fn, ms));
  after(timeoutMs, () => finish(false, rpcError(ErrorCode.TIMED_OUT, `tab ${tabId} did not finish loading within ${timeoutMs} ms`)));
  return { finish, after, check, settled: () => settled };
}

// wait_for_load: the tab's current load, or none if it has finished.
function waitForComplete(tabId, timeoutMs, pollMs) {
  return new Promise((resolve, reject) => {
    const onChange = (change, tab) => {
      if (change.status === "complete") watch.finish(true, tabFields(tab));
    };
    const watch = watchTab(tabId, { timeoutMs, pollMs, onChange }, resolve, reject);
    watch.check();
  });
}

// Runs `start`, which begins a navigation of the tab, and waits for that navigation. A wait armed only after
// `start` could see the old page's "complete" (an in-page history step begins asynchronously), so this one
// listens first and only counts a "complete" once the new navigation has begun. `startMs`: how long it may take
// to begin (Python's, core/browser/navigation.py TIMING).
function navigateTab(tab, start, { waitForLoad, timeoutMs, startMs, pollMs, notStarted }) {
  return new Promise((resolve, reject) => {
    let started = false;
    const onChange = (change, current) => {
      if (change.status === "loading" || change.url !== undefined) started = true;
      if (started && (!waitForLoad || change.status === "complete")) watch.finish(true, tabFields(current));
    };
    const watch = watchTab(tab.id, { timeoutMs, pollMs, url: tab.url, onChange }, resolve, reject);
    start()
      .then(() => watch.check())
      .then(() => {
        if (watch.settled()) return;
        watch.after(Math.min(startMs, timeoutMs), () => {
          if (!started) watch.finish(false, rpcError(ErrorCode.INVALID_PARAMS, notStarted));
        });
      })
      .catch((e) => watch.finish(false, e));
  });
}

async function inPage(a, func, args = []) {
  const tab = await targetTab(a.tabId);
  checkSite(tab, a);
  // A script cannot run while the page waits on a dialog: for an action Python says a dialog blocks, the
  // open dialog comes back instead, and Python answers (core/browser/executor.py dialog_open).
  const dialog = a.unlessDialog ? openDialog(tab.id) : null;
  if (dialog) return { blockedByDialog: dialog, tabId: tab.id };
  let result;
  try {
    // The page function checks the site again itself, in the same turn as it reads.
    [result] = await chrome.scripting.executeScript({ target: { tabId: tab.id }, func, args: [a.site ?? null, a.siteChanged ?? "", ...args] });
  } catch (e) {
    if (/showing error page/.test(e.message)) {
      throw rpcError(ErrorCode.INVALID_PARAMS, `tab ${tab.id} shows Chrome's error page: ${tab.url} did not load`);
    }
    throw e;
  }
  // The page functions catch their own exceptions; a missing result means the page went away meanwhile.
  if (result === undefined || result.result === undefined || result.result === null) {
    throw rpcError(ErrorCode.INTERNAL_ERROR, `tab ${tab.id}: the page gave no answer (it may have navigated away)`);
  }
  if (result.result.error) throw rpcError(ErrorCode.INVALID_PARAMS, result.result.error);
  return result.result;
}

// ------------------------------------------------------------------ functions run inside the page

// Each runs in the page, serialised on its own: no closures over this module, and every failure comes back as
// {error} (an exception thrown here would reach the worker only as a missing result).

// Each answer within the bounds Python gives (core/browser/page_reads.py cuts it and says so): at most
// `maxUnits` UTF-16 units of text, `maxLinks` links, and links until their text and addresses pass maxUnits.
function pageRead(site, siteChanged, what, maxUnits, maxLinks) {
  if (site !== null && location.origin !== site) return { error: `${siteChanged} (the tab shows ${location.origin})` };
  switch (what) {
    case "title": return { title: document.title.slice(0, maxUnits) };
    case "url": return { url: location.href.slice(0, maxUnits) };
    case "text": return { text: (document.body?.innerText ?? "").slice(0, maxUnits) };
    case "html": return { html: (document.documentElement?.outerHTML ?? "").slice(0, maxUnits) };
    case "links": {
      const links = [];
      let units = 0;
      for (const a of document.querySelectorAll("a[href]")) {
        if (links.length === maxLinks || units > maxUnits) break;
        // An SVG <a> has no innerText, and its href is an SVGAnimatedString: its address read as the page would.
        const href = typeof a.href === "string" ? a.href : URL.parse(a.href.baseVal, document.baseURI)?.href ?? "";
        const link = { text: (a.innerText ?? a.textContent).trim().slice(0, maxUnits), href: href.slice(0, maxUnits) };
        units += link.text.length + link.href.length;
        links.push(link);
      }
      return { links };
    }
    default: return { error: `unknown page read ${what}` };
  }
}

// history.go(delta), unless the Navigation API shows there is no such entry. It only knows this origin's
// entries, so that is certain only when they are all of the tab's history; otherwise the step is tried and the
// worker sees whether a navigation begins.
function pageHistoryStep(delta) {
  const nav = globalThis.navigation;
  if (nav && !(delta < 0 ? nav.canGoBack : nav.canGoForward) && nav.entries().length === history.length) {
    return { none: true };
  }
  history.go(delta);
  return { went: true };
}

// ------------------------------------------------------------------ navigation helpers

// One step back or forward. In a page Tabgate may read, the step is taken from inside the page (exactly one
// entry, like the page's own back link): chrome.tabs.goBack/goForward skip every entry that was left without
// a user click, which is every page a tool navigated away from, so they land several pages back or refuse.
async function historyStep(tab, delta, viaPage) {
  const none = `tab ${tab.id} has no ${delta < 0 ? "earlier page to go back" : "later page to go forward"} to`;
  if (viaPage) {
    const [step] = await chrome.scripting.executeScript({ target: { tabId: tab.id }, func: pageHistoryStep, args: [delta] });
    if (step?.result?.none) throw rpcError(ErrorCode.INVALID_PARAMS, none);
    return;
  }
  try {
    await (delta < 0 ? chrome.tabs.goBack(tab.id) : chrome.tabs.goForward(tab.id));
  } catch (e) {
    // Chrome words both directions as "Cannot find a next page in history."
    if (/Cannot find a next page/.test(e.message)) throw rpcError(ErrorCode.INVALID_PARAMS, none);
    throw e;
  }
}

// A history step's answer, once a page it restored from the back/forward cache is decided (nav_hold.js): a
// stopped one names nothing of that page (the agent hears where it led from Python, fenced). It waits up to
// `commitSeenMs` for the debugger's word of the commit.
async function stepped(tab, answer, commitSeenMs) {
  await seenCommit(tab.id, shownUrl(answer), commitSeenMs);
  if (!(await restoreStopped(tab.id))) return answer;
  throw rpcError(ErrorCode.INVALID_PARAMS, `tab ${tab.id} went to a page of another site; Tabgate took it back`);
}

// ------------------------------------------------------------------ the tools

// Whether the user granted `origin`; Chrome refuses to answer for an origin no grant can name (about:blank's
// "null", chrome://…): then not granted.
async function grantedOrigin(origin) {
  try {
    return await chrome.permissions.contains({ origins: [`${origin}/*`] });
  } catch {
    return false;
  }
}

// chrome.tabs.update with the options Python sent (activate: {active: true}).
const updateTab = async (a) => tabFields(await chrome.tabs.update(a.tabId, a.options));

// An executor on the tab the call names (or the active tab), once it still shows the site Python checked.
const onTab = (run) => async (a) => {
  const tab = await targetTab(a.tabId);
  checkSite(tab, a);
  return run(tab, a);
};

// Begins a navigation of the tab with `start` and waits for it as Python's timing says.
const go = (tab, a, start, notStarted) =>
  navigateTab(tab, start, { waitForLoad: a.waitForLoad, timeoutMs: a.timeoutMs, startMs: a.startMs, pollMs: a.pollMs, notStarted });

// A tool's executor is one function, or one per action (the action Python sent).
const executors = {
  // What Python decides from: the tab (tabId, or the active tab) and whether the user granted its URL's
  // origin. Python reads `granted` only for the pages it lets tools touch (core/calls/tab_scope.py).
  async tab(a) {
    const tab = await targetTab(a.tabId).catch((e) => {
      throw e.rpc ? e : rpcError(ErrorCode.INVALID_PARAMS, String(e.message ?? e));
    });
    return { ...tabFields(tab), granted: await grantedOrigin(originOf(shownUrl(tab))) };
  },

  // {action, tabId?, options}: options are exactly chrome.tabs' (Python builds them, core/browser/tab.py).
  browser_tab: {
    query: async (a) => (await chrome.tabs.query(a.options)).map(tabFields),
    create: async (a) => tabFields(await chrome.tabs.create(a.options)),
    close: onTab(async (tab) => {
      await chrome.tabs.remove(tab.id);
      return { closed: tab.id };
    }),
    activate: onTab((tab, a) => updateTab(a)),
    update: onTab((tab, a) => updateTab(a)),
  },

  browser_navigation: {
    navigate: onTab((tab, a) => go(tab, a, () => chrome.tabs.update(tab.id, { url: a.url }), `tab ${tab.id} did not start loading ${a.url}`)),
    reload: onTab((tab, a) => go(tab, a, () => chrome.tabs.reload(tab.id), `tab ${tab.id} did not start reloading`)),
    back: onTab(async (tab, a) => stepped(tab, await go(tab, a, () => historyStep(tab, -1, a.viaPage), `tab ${tab.id} has no earlier page to go back to`), a.commitSeenMs)),
    forward: onTab(async (tab, a) => stepped(tab, await go(tab, a, () => historyStep(tab, 1, a.viaPage), `tab ${tab.id} has no later page to go forward to`), a.commitSeenMs)),
    current_url: onTab(async (tab) => tabFields(tab)),
    wait_for_load: onTab((tab, a) => waitForComplete(tab.id, a.timeoutMs, a.pollMs)),
  },

  async browser_page(a) {
    return inPage(a, pageRead, [a.action, a.maxUnits, a.maxLinks]);
  },

  // The debugger executor (debugger.js): the command lists Python builds, and the tab's event buffers.
  async cdp(a, signal) {
    const tab = await targetTab(a.tabId);
    checkSite(tab, a); // before attaching; debugger.js checks again right before the first command
    try {
      return await runCommands(tab, a, signal);
    } catch (e) {
      // Attaching failed (another debugger holds the tab, the page became one Chrome protects, …).
      throw e.rpc ? e : rpcError(ErrorCode.INTERNAL_ERROR, `Chrome's debugger on tab ${tab.id}: ${e.message ?? e}`);
    }
  },

  async "cdp.buffer"(a) {
    const tab = await targetTab(a.tabId);
    return readBuffer(tab, a);
  },

  // {tabs}: the agents' tabs, whose document loads Chrome holds for Python to decide (nav_hold.js).
  async "cdp.guard"(a) {
    return guardTabs(a.tabs);
  },

  // {origins}: those of them the user granted (frames of other sites are shown only when granted).
  async "cdp.grants"(a) {
    const granted = await Promise.all(a.origins.map((o) => chrome.permissions.contains({ origins: [`${o}/*`] })));
    return { granted: a.origins.filter((_, i) => granted[i]) };
  },

  // {data, mimeType, quality?, width, rects}: the base64 image with each rect ([x, y, width, height] in CSS
  // pixels of an image `width` wide) painted grey; which rects is Python's (core/browser/masked_capture.py).
  async "cdp.mask"(a) {
    const bytes = Uint8Array.from(atob(a.data), (c) => c.charCodeAt(0));
    const image = await createImageBitmap(new Blob([bytes], { type: a.mimeType }));
    const canvas = new OffscreenCanvas(image.width, image.height);
    const g = canvas.getContext("2d");
    g.drawImage(image, 0, 0);
    const scale = image.width / a.width;
    g.fillStyle = "rgb(128, 128, 128)";
    for (const [x, y, w, h] of a.rects) g.fillRect(Math.floor(x * scale), Math.floor(y * scale), Math.ceil(w * scale) + 1, Math.ceil(h * scale) + 1);
    const quality = a.quality === undefined ? undefined : a.quality / 100;
    const out = new Uint8Array(await (await canvas.convertToBlob({ type: a.mimeType, quality })).arrayBuffer());
    let text = "";
    for (let i = 0; i < out.length; i += 0x8000) text += String.fromCharCode(...out.subarray(i, i + 0x8000));
    return { data: btoa(text) };
  },

  // {action, area, keys | items}: the keys as stored (Python adds the tools' namespace, core/browser/storage.py).
  browser_storage: {
    get: (a) => chrome.storage[a.area].get(a.keys),
    keys: (a) => chrome.storage[a.area].getKeys(),
    set: async (a) => {
      await chrome.storage[a.area].set(a.items);
      return {};
    },
    remove: async (a) => {
      await chrome.storage[a.area].remove(a.keys);
      return {};
    },
  },
};

// `timeoutMs`: the call's time limit, which Python always sends (core/browser/tool_spec.py). `stop` is aborted
// when Python gives up on the call or its time runs out: a command list then sends nothing more.
export async function executeBrowserTool(tool, args, timeoutMs, stop) {
  const entry = executors[tool];
  const run = typeof entry === "function" ? entry : entry?.[args.action];
  if (!run) throw rpcError(ErrorCode.METHOD_NOT_FOUND, `no browser executor for ${tool} ${args.action ?? ""}`.trim());
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      stop.abort();
      reject(rpcError(ErrorCode.TIMED_OUT, `${tool} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([run(args, stop.signal), timeout]);
  } catch (e) {
    throw e.rpc ? e : rpcError(ErrorCode.INTERNAL_ERROR, `${tool} ${args.action}: ${e.message ?? e}`);
  } finally {
    clearTimeout(timer);
  }
}
