// chrome.* executors for the browser tools. Python (core/browser) validates the arguments and decides;
// this module only performs the call it is given and returns plain JSON.
import { rpcError } from "./host.js";

const executors = {
  async browser_tab(args) {
    switch (args.action) {
      case "query":
        return (await chrome.tabs.query(args.query ?? {})).map(tabInfo);
      case "create":
        return tabInfo(await chrome.tabs.create({ url: args.url, active: args.active ?? true }));
      case "close":
        await chrome.tabs.remove(args.tabId);
        return { closed: args.tabId };
      case "activate":
        return tabInfo(await chrome.tabs.update(args.tabId, { active: true }));
      case "update":
        return tabInfo(await chrome.tabs.update(args.tabId, args.properties ?? {}));
      default:
        throw rpcError(-32602, `browser_tab: unknown action ${args.action}`);
    }
  },
};

export function tabInfo(tab) {
  return {
    id: tab.id, windowId: tab.windowId, index: tab.index, url: tab.url ?? tab.pendingUrl ?? "",
    title: tab.title ?? "", active: tab.active, pinned: tab.pinned, status: tab.status,
  };
}

export async function executeBrowserTool(tool, args, timeoutMs = 30000) {
  const run = executors[tool];
  if (!run) throw rpcError(-32601, `no browser executor for ${tool}`);
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(rpcError(-32001, `${tool} timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([run(args), timeout]);
  } catch (e) {
    throw e.rpc ? e : rpcError(-32603, `${tool}: ${e.message ?? e}`);
  } finally {
    clearTimeout(timer);
  }
}
