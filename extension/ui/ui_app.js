// An MCP App's View in the popup's result, beside the text result. The View runs in app_sandbox.html (a
// manifest sandbox page: opaque origin, no chrome.*), which holds it in a frame sandboxed again under the CSP
// Python built. This file only relays: every message of the View goes to Python (`app/request`), and what
// Python answers is done here (reply, ask the person, open a tab, resize). Nothing of the View's becomes HTML
// in the popup: the question is text, the View stays in its frame.
import { el, send } from "./ui_dom.js";
import { ErrorCode } from "../error_codes.js";
import { toolTitle } from "./ui_tools.js";
import { MessageType } from "../message_types.js";
import { UiTiming } from "../ui_timings.js";


function theme() {
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

// Opening a tool that has an App starts the sandbox's renderer once per popup: a hidden proxy page kept open
// (it mounts nothing), so that the View after a result does not wait for a new process.
let warm = null;
export function warmApps(tool) {
  if (!tool.ui || warm) return;
  warm = el("iframe", { src: "app_sandbox.html", sandbox: "allow-scripts", hidden: true, tabindex: -1, "aria-hidden": "true", title: "" });
  document.body.append(warm);
}

// The App of `tool`'s call, or null for a tool without one. `answer` is the popup's dispatch answer.
export function appFor(tool, args, answer, { cancelled = false } = {}) {
  if (!tool.ui) return null;
  const title = toolTitle(tool);
  const status = el("p", { class: "muted app-status", role: "status" }, "Loading the App…");
  const question = el("div", { class: "app-question", role: "alertdialog", "aria-label": `${title} App asks`, hidden: true });
  const frame = el("iframe", { class: "app-frame", src: "app_sandbox.html", title: `App of ${title}`, sandbox: "allow-scripts" });
  const close = el("button", { type: "button", class: "link app-close" }, "Close App");
  const box = el("section", { class: "app", "aria-label": `App of ${title}` }, el("div", { class: "app-bar" }, el("span", {}, `App · ${title}`), close), question, frame, status);
  const bridge = new AppBridge({ tool, args, answer, cancelled, frame, status, question, box });
  close.addEventListener("click", () => bridge.close(close));
  bridge.start();
  return box;
}

class AppBridge {
  constructor(parts) {
    Object.assign(this, parts);
    this.view = null; // Python's app/view answer
    this.initialized = false;
    this.tornDown = null; // resolves when the View answers the teardown
    this.questions = Promise.resolve(); // the person's questions, one after the other
    this.listener = (event) => this.onMessage(event);
    this.scheme = matchMedia("(prefers-color-scheme: dark)");
    this.themeListener = () => this.themeChanged();
  }

  async themeChanged() {
    if (!this.frame.isConnected) return this.end("");
    const answer = await send({ type: MessageType.APP_THEME, theme: theme() });
    if (this.initialized && answer?.notification) this.toView(answer.notification);
  }

  async start() {
    window.addEventListener("message", this.listener);
    this.scheme.addEventListener("change", this.themeListener);
    const view = await send({ type: MessageType.APP_VIEW, tool: this.tool.name, arguments: this.args, answer: this.answer, cancelled: this.cancelled });
    if (!view || view.error) {
      this.end(`App not shown: ${view?.error?.message ?? "no answer"}`);
      return;
    }
    this.view = view;
    this.frame.dataset.csp = view.csp;
    if (this.ready) this.mount();
  }

  mount() {
    this.post({ tabgate: "mount", document: this.view.document, policy: this.view.proxyPolicy });
    this.status.textContent = "";
  }

  post(data) {
    this.frame.contentWindow?.postMessage(data, "*");
  }

  toView(message) {
    this.post({ tabgate: "toView", message });
  }

  onMessage(event) {
    if (!this.frame.isConnected) return this.end(""); // the result was replaced: this View is gone
    // The proxy's origin is "null" like any sandbox's: only the window of our own frame counts.
    if (event.source !== this.frame.contentWindow) return;
    const data = event.data;
    if (data?.tabgate === "ready") {
      this.ready = true;
      if (this.view) this.mount();
    } else if (data?.tabgate === "fromView") this.relay(data.message, null);
  }

  async relay(message, approved) {
    let answer;
    try {
      answer = await send({ type: MessageType.APP_REQUEST, tool: this.tool.name, message, theme: theme(), version: chrome.runtime.getManifest().version, approved });
    } catch (e) {
      answer = { error: { code: ErrorCode.INTERNAL_ERROR, message: String(e?.message ?? e) } }; // the worker restarted
    }
    if (!answer || answer.error) {
      // A request gets its error back, as Python would have answered it; a notification has nobody to tell.
      const error = answer?.error ?? { code: ErrorCode.INTERNAL_ERROR, message: "no answer" };
      if (message && typeof message === "object" && "id" in message && "method" in message) this.toView({ jsonrpc: "2.0", id: message.id, error });
      return;
    }
    switch (answer.action) {
      case "reply":
        if (answer.open) chrome.tabs.create({ url: answer.open });
        this.toView(answer.reply);
        break;
      case "ask": // one question at a time: the next waits until this one is answered
        this.questions = this.questions.then(() => this.ask(answer.question)).then((yes) => this.relay(message, yes));
        break;
      case "initialized":
        if (this.initialized) break;
        this.initialized = true;
        for (const note of this.view.afterInitialized) this.toView(note);
        this.box.dataset.state = "ready";
        break;
      case "resize":
        this.frame.style.height = `${answer.height}px`;
        break;
      case "tornDown":
        this.tornDown?.();
        break;
    }
  }

  ask(text) {
    let answer;
    const answered = new Promise((resolve) => (answer = resolve));
    const reply = (yes) => {
      this.question.hidden = true;
      this.question.replaceChildren();
      answer(yes);
    };
    const no = el("button", { type: "button", onclick: () => reply(false) }, "Deny");
    this.question.replaceChildren(el("p", {}, text), el("div", { class: "buttons" }, el("button", { type: "button", class: "primary", onclick: () => reply(true) }, "Allow"), no));
    this.question.hidden = false;
    no.focus();
    return answered;
  }

  // Teardown first, while the popup is still open; the View is removed once it answered or the wait is over.
  async close(button) {
    button.disabled = true;
    this.status.textContent = "Closing the App…";
    let answered = false;
    if (this.initialized) {
      const done = new Promise((resolve) => (this.tornDown = resolve));
      this.toView(this.view.teardown);
      answered = await Promise.race([done.then(() => true), new Promise((r) => setTimeout(() => r(false), UiTiming.APP_TEARDOWN_WAIT_MS))]);
    }
    this.end(answered ? "App closed." : "App closed (it did not answer in time).");
    this.box.dataset.teardown = answered ? "answered" : "unanswered";
    button.remove();
  }

  end(text) {
    window.removeEventListener("message", this.listener);
    this.scheme.removeEventListener("change", this.themeListener);
    this.frame.remove();
    this.question.hidden = true;
    this.status.textContent = text;
    this.box.dataset.state = "closed";
  }
}
