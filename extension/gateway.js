// The agent gateway in the service worker (contract §8): relays the host's requests made for agents to Python
// and Python's gateway events to the host, and counts pending approvals on the badge. Python decides.
import { rpcError } from "./host.js";

const HOST_REQUESTS = new Set(["gateway/tools", "gateway/call"]);
const TO_HOST = new Set(["gateway/state", "gateway/changed"]);

export function createGatewayRelay({ host, python }) {
  return {
    // The host asks for an agent: answer with what Python says.
    async hostRequest(method, params) {
      if (!HOST_REQUESTS.has(method)) throw rpcError(-32601, `method not found: ${method}`);
      return python.call({ ...params, type: method });
    },
    hostNotification(method, params) {
      if (method === "gateway/closed") python.notify({ ...params, type: method });
    },
    // Python's gateway events go to the host; approvals also set the badge. True: handled, do not broadcast.
    pythonEvent(event) {
      if (TO_HOST.has(event.type)) {
        const { type, ...params } = event;
        host.notify(type, params);
        return true;
      }
      if (event.type === "approval") {
        const count = event.pending?.length ?? 0;
        chrome.action.setBadgeText({ text: count ? String(count) : "" });
        chrome.action.setBadgeBackgroundColor({ color: "#b3261e" });
      }
      return false;
    },
  };
}
