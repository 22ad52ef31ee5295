// The agent gateway in the service worker (contract §8, §8.1): relays the host's requests made for agents to
// Python and Python's gateway events to the host, tells Python about tabs being opened and closed, runs the
// tab-group calls Python asks for, counts pending approvals on the badge (and notifies of new ones:
// approval_notices.js), and stores Python's activity log (activity_store.js). Python decides.
import { storeActivity } from "./activity_store.js";
import { approvalsChanged } from "./approval_notices.js";
import { MessageType, EventType } from "../message_types.js";

const TO_HOST = new Set(["gateway/state", "gateway/changed"]);

export function createGatewayRelay({ host, python, history, broadcast }) {
  // Python builds the call item and answers {answer, record}: the agent's CallToolResult and the history's.
  // It announces the call (gateway/started) with its item; the worker only picks the id.
  // The host's `ref` of each running call, by call id: its MCP progress goes back to the agent (`gateway/progress`).
  const refs = new Map();
  async function call({ ref, ...params }) {
    const id = `${params.session}:${crypto.randomUUID().slice(0, 13)}`;
    let envelope;
    refs.set(id, { session: params.session, ref });
    try {
      envelope = await python.call({ ...params, type: MessageType.GATEWAY_CALL, callId: id });
    } catch (e) {
      // Python never answered: the host answers the agent with this JSON-RPC error.
      history.recordEnd(id, { status: "fatal", answer: { fatal: String(e.message), outcome: "fatal" } });
      throw e;
    } finally {
      refs.delete(id);
    }
    history.recordEnd(id, envelope.record);
    return envelope.answer;
  }

  // An agent's tab joins its group (a new group titled with its name when it has none).
  async function group(tabId, title, groupId) {
    const id = await chrome.tabs.group(groupId == null ? { tabIds: [tabId] } : { tabIds: [tabId], groupId });
    if (groupId == null) await chrome.tabGroups.update(id, { title, collapsed: false });
    return id;
  }

  async function tabs({ op, title, groupId, tabId }) {
    if (op === "create") return { tabId: (await chrome.tabs.create({ url: "about:blank", active: false })).id };
    if (op === "add") return { tabId, groupId: await group(tabId, title, groupId) };
    throw new Error(`unknown tabs op ${op}`);
  }

  // The tab a page opened (a link with a target, window.open, noopener too) and the tab whose page opened it.
  // Not tabs.onCreated's openerTabId: Chrome sets that to whatever tab was active, so a window.open from a
  // background tab names the person's tab, and a tab the person opens names the agent's tab they look at.
  chrome.webNavigation.onCreatedNavigationTarget.addListener(({ tabId, sourceTabId }) => {
    python.notify({ type: MessageType.TABS_CREATED, tabId, sourceTabId });
  });
  chrome.tabs.onRemoved.addListener((tabId) => python.notify({ type: MessageType.TABS_REMOVED, tabId }));

  return {
    tabs,
    // The host asks for an agent: answer with what Python says.
    hostRequests: {
      "gateway/tools": (params) => python.call({ ...params, type: MessageType.GATEWAY_TOOLS }),
      "gateway/call": call,
    },
    // A running MCP call's progress: to the agent, when the call is an agent's.
    progress(callId, note) {
      const call = refs.get(callId);
      if (call?.ref !== undefined) host.notify("gateway/progress", { ...call, ...note });
    },
    hostNotification(method, params) {
      if (method === "gateway/closed") python.notify({ ...params, type: MessageType.GATEWAY_CLOSED });
    },
    // Python's gateway events go to the host; approvals also set the badge. True: handled, do not broadcast.
    pythonEvent(event) {
      if (TO_HOST.has(event.type)) {
        const { type, ...params } = event;
        host.notify(type, params);
        return true;
      }
      if (event.type === EventType.GATEWAY_STARTED) {
        history.recordStart({ id: event.callId, name: event.name, item: event.item, startedAt: Date.now(), caller: event.caller });
        return true;
      }
      if (event.type === EventType.AGENTS_ACTIVITY_STORE) {
        // A change to Python's bounded log, applied to the stored list; pages hear only that it changed.
        storeActivity(event);
        broadcast({ type: EventType.AGENTS_ACTIVITY_CHANGED });
        return true;
      }
      if (event.type === EventType.APPROVAL) {
        approvalsChanged(event);
        const count = event.pending?.length ?? 0;
        chrome.action.setBadgeText({ text: count ? String(count) : "" });
        chrome.action.setBadgeBackgroundColor({ color: "#b3261e" });
      }
      return false;
    },
  };
}
