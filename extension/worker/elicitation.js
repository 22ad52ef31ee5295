// Servers' questions to the person (the host's `elicitation/create` requests, protocol §2). Python keeps each
// question and decides its time, whether it needs a window of its own, the words of its end and whether an
// answer fits (core/host_link/elicitation.py: Questions); this module holds the host's request open until Python says how
// it ends, runs the timer and opens or watches the questions' window.
import { rpcError } from "./host.js";
import { MessageType } from "../message_types.js";

const WINDOW = { type: "popup", width: 480, height: 640 };

export function createElicitations({ python, pagesOpen }) {
  const open = new Map(); // id → {resolve, reject, timer}: the host's requests waiting for their answer
  let questionWindow = null; // the window this module opened, while it is open: later questions show there too

  function showInWindow() {
    questionWindow ??= chrome.windows.create({ ...WINDOW, url: chrome.runtime.getURL("ui/popup.html?questions=1") }).then(
      (w) => w.id,
      (e) => {
        console.warn("tabgate: could not open a window for a server's question", e);
        questionWindow = null;
        return null;
      },
    );
  }

  function settle(id) {
    const entry = open.get(id);
    open.delete(id);
    clearTimeout(entry?.timer);
    return entry;
  }

  async function create(request) {
    const asked = await python.call({ type: MessageType.ELICITATION_ASK, request, pagesOpen: pagesOpen(), windowOpen: questionWindow !== null });
    if (asked.error) throw rpcError(asked.error.code, asked.error.message);
    if (asked.openWindow) showInWindow();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        settle(asked.id);
        python.call({ type: MessageType.ELICITATION_EXPIRE, id: asked.id }).catch(() => {});
        reject(rpcError(asked.timeout.code, asked.timeout.message));
      }, asked.limitMs);
      open.set(asked.id, { resolve, reject, timer });
    });
  }

  // The person's answer: Python checks it; the host's request gets the result it made.
  async function answer(message) {
    const checked = await python.call(message);
    if (!checked.error) settle(message.id)?.resolve(checked.result);
    return checked;
  }

  chrome.windows.onRemoved.addListener(async (windowId) => {
    if (!questionWindow || (await questionWindow) !== windowId) return;
    questionWindow = null;
    const closed = await python.call({ type: MessageType.ELICITATION_WINDOW_CLOSED });
    for (const id of closed.cancelled ?? []) settle(id)?.resolve(closed.result);
  });

  return {
    hostRequests: { "elicitation/create": create },
    handlers: { [MessageType.ELICITATION_ANSWER]: (m) => answer(m) },
  };
}
