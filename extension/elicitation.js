// Servers' questions to the person (the host's `elicitation/create` requests, protocol §2): each is kept
// until it is answered or its time is up, shown in every open popup, and in a small window of its own when no
// extension page is open to show it. Python checks an answer against the form before it goes back.
import { rpcError } from "./host.js";
import { ErrorCode } from "./error_codes.js";

const WINDOW = { type: "popup", width: 480, height: 640 };
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

export function createElicitations({ python, broadcast, pagesOpen }) {
  const pending = new Map(); // id → {request, resolve, reject, timer, windowId}
  let questionWindow = null; // the window this module opened, while it is open: later questions show there too

  function showInWindow(entry) {
    questionWindow ??= chrome.windows.create({ ...WINDOW, url: "popup.html?questions=1" }).then(
      (w) => w.id,
      (e) => {
        console.warn("tabgate: could not open a window for a server's question", e);
        questionWindow = null;
        return null;
      },
    );
    questionWindow.then((windowId) => (entry.windowId = windowId));
  }

  function settle(id) {
    const entry = pending.get(id);
    if (!entry) return null;
    pending.delete(id);
    clearTimeout(entry.timer);
    broadcast({ type: "elicitation/done", id });
    return entry;
  }

  function create(request) {
    const id = crypto.randomUUID();
    const limitMs = Number.isFinite(request.timeoutMs) && request.timeoutMs > 0 ? request.timeoutMs : DEFAULT_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      // The person's time is up: the server hears why, and every page drops the question.
      const timer = setTimeout(() => {
        settle(id);
        reject(rpcError(ErrorCode.TIMED_OUT, `nobody answered within ${Math.round(limitMs / 1000)} s`));
      }, limitMs);
      const entry = { request, resolve, reject, timer, windowId: null };
      pending.set(id, entry);
      broadcast({ type: "elicitation", id, request });
      if (questionWindow || !pagesOpen()) showInWindow(entry);
    });
  }

  async function answer({ id, action, content }) {
    const entry = pending.get(id);
    if (!entry) return { error: { code: ErrorCode.INVALID_PARAMS, message: "This question was already answered, or its time ran out." } };
    const checked = await python.call({ type: "elicitation/check", schema: entry.request.requestedSchema, action, content });
    if (checked.error) return checked;
    settle(id);
    entry.resolve(checked.result);
    return { answered: checked.result.action };
  }

  // The person closed the window opened for questions: what it showed is cancelled.
  chrome.windows.onRemoved.addListener(async (windowId) => {
    if (!questionWindow || (await questionWindow) !== windowId) return;
    questionWindow = null;
    for (const [id, entry] of pending) if (entry.windowId === windowId && settle(id)) entry.resolve({ action: "cancel" });
  });

  return {
    hostRequests: { "elicitation/create": create },
    handlers: {
      elicitations: async () => ({ pending: [...pending].map(([id, e]) => ({ id, request: e.request })) }),
      "elicitation/answer": (m) => answer(m),
    },
  };
}
