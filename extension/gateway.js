// The agent gateway in the service worker (contract §8): relays the host's requests made for agents to Python
// and Python's gateway events to the host, and counts pending approvals on the badge. Python decides.
const TO_HOST = new Set(["gateway/state", "gateway/changed"]);

export function createGatewayRelay({ host, python, history }) {
  // An agent's call is recorded like a page's: Python answers {answer, record} and decides the outcome.
  async function call(params) {
    const id = `${params.session}:${crypto.randomUUID().slice(0, 13)}`;
    const item = { type: "function_call", name: params.name, arguments: JSON.stringify(params.arguments ?? {}), call_id: id };
    history.recordStart({ id, name: params.name, item, startedAt: Date.now(), caller: params.client?.name });
    let envelope;
    try {
      envelope = await python.call({ ...params, type: "gateway/call", callId: id });
    } catch (e) {
      const answer = { fatal: String(e.message) };
      envelope = { answer, record: { status: "fatal", answer } };
    }
    history.recordEnd(id, envelope.record);
    return envelope.answer;
  }

  return {
    // The host asks for an agent: answer with what Python says.
    hostRequests: {
      "gateway/tools": (params) => python.call({ ...params, type: "gateway/tools" }),
      "gateway/call": call,
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
