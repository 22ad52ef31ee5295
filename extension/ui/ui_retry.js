// *Retry* for a server that is `failed` (a failure that cannot mend itself: the host does not retry it by itself).
// The host reads the server's config again and starts it (`servers/restart`); the new status arrives like any
// other, so this module only sends, and shows why a try was refused.
import { el, send } from "./ui_dom.js";
import { MessageType } from "../message_types.js";

const busy = new Set(); // servers this page sent a retry for, until the host answers
const failures = new Map(); // server → why this page's last retry was refused

async function retry(server, rerender) {
  busy.add(server);
  failures.delete(server);
  rerender();
  let reply;
  try {
    reply = await send({ type: MessageType.SERVERS_RESTART, server });
  } catch (e) {
    reply = { error: { message: String(e.message ?? e) } };
  }
  busy.delete(server);
  if (reply?.error) failures.set(server, String(reply.error.message ?? "the host refused"));
  rerender();
}

export function retryControl(srv, rerender) {
  const name = String(srv.name);
  if (srv.status !== "failed" || srv.auth === "required" || srv.auth === "signingIn") {
    failures.delete(name);
    return [];
  }
  const why = failures.get(name);
  return [
    el(
      "button",
      { type: "button", class: "link retry", "aria-label": `Retry ${name}`, disabled: busy.has(name), onclick: () => retry(name, rerender) },
      busy.has(name) ? "Retrying…" : "Retry",
    ),
    why ? el("div", { class: "server-error", role: "alert" }, `Could not retry ${name}: ${why}`) : null,
  ];
}
