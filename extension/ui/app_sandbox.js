// The MCP App proxy: a manifest sandbox page (an opaque origin, no chrome.*) inside the popup's result. It puts
// the View's document, built by Python with its CSP first, into an inner frame sandboxed again (scripts only,
// no same-origin), and passes messages between that frame and the popup, each only from where it must come:
// the popup is this page's parent, the View its one inner frame. The origin of both is "null": checking
// `event.source` is what tells them apart.
"use strict";

let view = null; // the inner frame's window

// `policy` (Python's) holds the navigations of the View's frame: a View that navigates itself leaves its own
// policy behind with its document, so this page's frame-src must name where it may go. A policy added by
// script only ever adds restrictions.
function mount(documentText, policy) {
  const meta = document.createElement("meta");
  meta.httpEquiv = "Content-Security-Policy";
  meta.content = policy;
  document.head.append(meta);
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.setAttribute("title", "MCP App");
  frame.srcdoc = documentText; // a srcdoc document in a sandboxed frame: its own opaque origin, no DOM of ours
  document.body.replaceChildren(frame);
  view = frame.contentWindow;
}

window.addEventListener("message", (event) => {
  const data = event.data;
  if (event.source === window.parent) {
    if (data?.tabgate === "mount" && typeof data.document === "string" && typeof data.policy === "string" && view === null) {
      mount(data.document, data.policy);
    }
    else if (data?.tabgate === "toView" && view !== null) view.postMessage(data.message, "*");
  } else if (view !== null && event.source === view) {
    window.parent.postMessage({ tabgate: "fromView", message: data }, "*");
  }
});

window.parent.postMessage({ tabgate: "ready" }, "*");
