// Signing in to OAuth servers from the server list: the button, what is under way, why a try failed.
// The host asks the service worker to open the sign-in page (chrome.identity), stores the tokens and starts
// the server again; the new status arrives like any other, so this module only sends and shows failures.
import { el, send } from "./ui_dom.js";
import { MessageType } from "../message_types.js";

const busy = new Set(); // servers this page sent a sign-in or sign-out for, until the host answers
const failures = new Map(); // server → why this page's last try failed (when the status does not say it)
const notes = new Map(); // server → what this page's last sign-out left for the person to do

async function ask(method, server, rerender) {
  busy.add(server);
  failures.delete(server);
  notes.delete(server);
  rerender();
  let reply;
  try {
    reply = await send({ type: method, server });
  } catch (e) {
    reply = { error: { message: String(e.message ?? e) } };
  }
  busy.delete(server);
  if (reply?.error) failures.set(server, String(reply.error.message ?? "the host refused"));
  else if (reply?.note) notes.set(server, String(reply.note));
  rerender();
}


// The controls of one server row, with its error line for OAuth servers (`serverError` draws the others').
export function signInControls(srv, rerender) {
  const name = String(srv.name);
  if (srv.auth === "signedIn") {
    failures.delete(name);
    notes.delete(name);
  }
  // An OAuth server's error line is drawn here: this page's last failed try is newer than the status's. A server
  // waiting for a sign-in shows only why a sign-in failed: its row already says that it needs one.
  const failure = failures.get(name);
  const why = failure ?? (srv.auth === "signedIn" ? srv.error : srv.signInError);
  const failureNote = why ? el("div", { class: "server-error", role: failure ? "alert" : undefined }, String(why)) : null;
  if (srv.auth === "signingIn" || (busy.has(name) && srv.auth !== "signedIn")) {
    return [el("span", { class: "signin-busy muted", role: "status" }, " · signing in… finish in the sign-in window"), failureNote];
  }
  if (srv.auth === "required") {
    return [
      el(
        "button",
        { type: "button", class: "signin", "aria-label": `Sign in to ${name}`, onclick: () => ask(MessageType.SERVERS_SIGN_IN, name, rerender) },
        "Sign in",
      ),
      // The scope the server asked for (a 403 for one tool, or its first 401): what the sign-in will ask.
      srv.scope ? el("div", { class: "signin-scope muted" }, `asks for: ${String(srv.scope)}`) : null,
      failureNote,
      notes.has(name) ? el("div", { class: "server-note muted", role: "status" }, notes.get(name)) : null,
    ];
  }
  if (srv.auth === "signedIn") {
    return [
      el("span", { class: "muted" }, " · signed in"),
      el(
        "button",
        { type: "button", class: "link signout", "aria-label": `Sign out of ${name}`, disabled: busy.has(name), onclick: () => ask(MessageType.SERVERS_SIGN_OUT, name, rerender) },
        "Sign out",
      ),
      failureNote,
    ];
  }
  return []; // not an OAuth server
}

// The error line of a server that does not sign in with OAuth (those get theirs from signInControls).
export function serverError(srv) {
  return srv.error && !srv.auth ? el("div", { class: "server-error" }, String(srv.error)) : null;
}
