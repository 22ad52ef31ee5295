// The "Raw JSON" view of a tool's arguments: one text box holding them as a JSON object, and the line that
// says why its text is not one.
import { el } from "./ui_dom.js";

export class RawJson {
  // onEdit runs on every keystroke in the box.
  constructor(onEdit) {
    this.text = el("textarea", {
      id: "raw-json",
      class: "mono",
      rows: 8,
      spellcheck: false,
      "aria-describedby": "raw-error",
      oninput: onEdit,
    });
    this.error = el("p", { class: "field-error", id: "raw-error", hidden: true });
    this.node = el(
      "div",
      { class: "field", id: "raw-box", hidden: true },
      el("label", { for: "raw-json" }, "Arguments (JSON)"),
      this.text,
      this.error,
    );
  }

  show(args) {
    this.text.value = JSON.stringify(args, null, 2);
  }

  // An empty message clears the error.
  setError(message) {
    this.error.textContent = message;
    this.error.hidden = !message;
    this.text.setAttribute("aria-invalid", message ? "true" : "false");
  }

  // The text as an object, or null after saying why it is not one (and moving there when focus is set).
  parse(focus) {
    let value;
    let message = "";
    try {
      value = JSON.parse(this.text.value);
      if (value === null || typeof value !== "object" || Array.isArray(value)) message = "The arguments must be a JSON object: { … }";
    } catch (e) {
      message = `Not valid JSON: ${e.message}`;
    }
    this.setError(message);
    if (!message) return value;
    if (focus) this.text.focus();
    return null;
  }
}
