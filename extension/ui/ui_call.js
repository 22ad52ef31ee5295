// The tool view's progress row: which call it shows (running or not), the progress its server reports, and
// Cancel for the running call (Python stops it, core/runtime/running_calls.py). `state` is the popup's
// (viewing, viewingRunning, form, cancelling).
import { $, send } from "./ui_dom.js";
import { MessageType } from "../message_types.js";

// The progress row for the call the tool view shows (null hides it).
export function setCall(state, callId) {
  state.viewing = callId;
  state.viewingRunning = Boolean(callId);
  $("call").hidden = !callId;
  const progress = $("progress");
  progress.removeAttribute("value");
  progress.removeAttribute("max");
  $("progress-text").textContent = callId ? "Running…" : "";
  $("cancel").hidden = !callId;
  $("cancel").disabled = false;
  if (state.form) state.form.runButton.disabled = false;
}

export async function cancelCall(state) {
  const callId = state.viewing;
  if (!callId) return;
  $("cancel").disabled = true;
  $("progress-text").textContent = "Cancelling…";
  state.cancelling.add(callId);
  try {
    const answer = await send({ type: MessageType.CANCEL, call_id: callId });
    if (!answer?.cancelled) $("progress-text").textContent = "This call is no longer running.";
  } catch (e) {
    $("progress-text").textContent = `Cancel failed: ${e.message}`;
  }
}

export function onProgress(state, e) {
  if (e.call_id !== state.viewing) return;
  const progress = $("progress");
  const hasTotal = typeof e.total === "number" && e.total > 0;
  if (hasTotal) {
    progress.max = e.total;
    progress.value = Math.min(Number(e.progress) || 0, e.total);
  } else {
    progress.removeAttribute("value"); // indeterminate: a bare count has no end to fill towards
  }
  const count = hasTotal ? `${e.progress} / ${e.total}` : `${e.progress ?? ""}`;
  $("progress-text").textContent = [count, e.message ? String(e.message) : ""].filter(Boolean).join(" · ");
}
