// The plan `update_plan` last stored, shown under the tools: read once when the popup opens, then pushed.
import { $, el, clear, send } from "./ui_dom.js";
import { MessageType } from "../message_types.js";

const PLAN_MARK = { completed: "✓", in_progress: "▸", pending: "○" };

export async function refreshPlan() {
  let answer;
  try {
    answer = await send({ type: MessageType.PLAN });
  } catch {
    return;
  }
  if (answer && !answer.error) renderPlan(answer);
}

export function renderPlan({ explanation, plan }) {
  const steps = Array.isArray(plan) ? plan : [];
  $("plan-section").hidden = !steps.length;
  $("plan-explanation").textContent = explanation ? String(explanation) : "";
  $("plan-explanation").hidden = !explanation;
  clear(
    $("plan"),
    steps.map((s) =>
      el(
        "li",
        { class: `plan-step ${String(s.status)}`, dataset: { status: String(s.status) } },
        el("span", { class: "plan-mark", "aria-hidden": "true" }, PLAN_MARK[s.status] ?? "•"),
        el("span", {}, String(s.step ?? "")),
        el("span", { class: "sr-only" }, ` (${String(s.status ?? "").replace("_", " ")})`),
      ),
    ),
  );
}
