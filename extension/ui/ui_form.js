// A tool's form: a field per argument (ui_form_field.js) and a "Raw JSON" view of the same arguments kept
// in sync (ui_form_raw.js). What is valid is Python's call, so the form sends what the person typed and
// blocks only text it cannot turn into JSON at all, and required fields left empty.
import { el } from "./ui_dom.js";
import { Field } from "./ui_form_field.js";
import { RawJson } from "./ui_form_raw.js";
import { resolve } from "./ui_form_schema.js";
import { readMarked } from "./ui_form_values.js";

let formSerial = 0;

export class ToolForm {
  // tool: {name, parameters}; onSubmit(args) runs on Run / Enter / Ctrl+Enter once the arguments parse.
  constructor(tool, { onSubmit }) {
    const serial = ++formSerial;
    const schema = resolve(tool.parameters ?? {});
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    this.fields = Object.entries(schema.properties ?? {}).map(
      ([name, sub], i) => new Field(name, sub, required.has(name), `arg-${serial}-${i}`),
    );
    this.extras = {}; // keys from the raw JSON the form cannot show; sent as they are
    this.onSubmit = onSubmit;
    // Python marks the fields only some actions use ("x-actions"); the others are hidden for that action.
    this.actionField = this.fields.find((f) => f.name === "action" && f.kind === "enum") ?? null;
    this.actionField?.control.addEventListener("change", () => this.#showActionFields());

    this.fieldBox = el(
      "div",
      { id: "fields", class: "fields" },
      this.fields.length ? this.fields.map((f) => f.node) : el("p", { class: "muted" }, "This tool takes no arguments."),
    );
    this.extrasNote = el("p", { class: "muted", id: "extras-note", hidden: true });
    this.rawToggle = el("input", { type: "checkbox", id: "raw-toggle", role: "switch", onchange: () => this.#toggleRaw() });
    this.rawJson = new RawJson(() => this.#rawEdited());
    this.runButton = el("button", { type: "submit", id: "run", class: "primary" }, "Run");
    this.node = el(
      "form",
      { id: "tool-form", noValidate: true, onsubmit: (e) => this.#submit(e), onkeydown: (e) => this.#key(e) },
      this.fieldBox,
      this.extrasNote,
      this.rawJson.node,
      el(
        "div",
        { class: "form-actions" },
        el("div", { class: "check" }, this.rawToggle, el("label", { for: "raw-toggle" }, "Raw JSON")),
        this.runButton,
      ),
    );
    this.#showActionFields();
  }

  #showActionFields() {
    const action = this.actionField?.read().value;
    for (const f of this.fields) {
      const only = f.schema["x-actions"];
      f.node.hidden = Array.isArray(only) && action !== undefined && !only.includes(action);
    }
  }

  get raw() {
    return this.rawToggle.checked;
  }

  focusFirst() {
    if (this.raw) this.rawJson.text.focus();
    else if (this.fields[0]) this.fields[0].focusFirst();
    else this.runButton.focus();
  }

  // The arguments as an object, or null after showing what is wrong.
  collect() {
    return this.raw ? this.#collectRaw() : this.#collectForm();
  }

  #collectRaw() {
    const args = this.rawJson.parse(true);
    if (!args) return null;
    const missing = this.fields.filter((f) => f.required && !f.node.hidden && !(f.name in args)).map((f) => f.name);
    if (!missing.length) return args;
    this.rawJson.setError(`Required, but missing: ${missing.join(", ")}`);
    this.rawJson.text.focus();
    return null;
  }

  // checkRequired: false when the arguments only move to the raw JSON view, where they may still be incomplete.
  #collectForm({ checkRequired = true } = {}) {
    const args = {};
    let firstBad = null;
    for (const f of this.fields) {
      if (f.node.hidden) continue; // a field the chosen action does not use
      const r = readMarked(f, checkRequired);
      if (r.error) firstBad ??= f.control;
      else if ("value" in r) args[f.name] = r.value;
    }
    if (firstBad) {
      firstBad.focus();
      return null;
    }
    for (const [k, v] of Object.entries(this.extras)) if (!(k in args)) args[k] = v;
    return args;
  }

  setArguments(args) {
    this.extras = {};
    const byName = new Map(this.fields.map((f) => [f.name, f]));
    for (const f of this.fields) {
      const v = args[f.name];
      if (v === undefined || f.accepts(v)) f.write(v);
      else f.write(undefined);
    }
    for (const [k, v] of Object.entries(args)) {
      const f = byName.get(k);
      if (!f || !f.accepts(v)) this.extras[k] = v;
    }
    const kept = Object.keys(this.extras);
    this.extrasNote.hidden = !kept.length;
    this.extrasNote.textContent = kept.length ? `Also sent as given in the raw JSON: ${kept.join(", ")}` : "";
    if (this.raw) this.rawJson.show(args);
    this.#showActionFields();
  }

  #rawEdited() {
    const args = this.rawJson.parse(false);
    if (args) this.#applyToForm(args);
  }

  #applyToForm(args) {
    const text = this.rawJson.text.value;
    this.setArguments(args);
    this.rawJson.text.value = text; // keep the person's own formatting while they type
  }

  #toggleRaw() {
    if (this.raw) {
      const args = this.#collectForm({ checkRequired: false });
      if (!args) {
        this.rawToggle.checked = false;
        return;
      }
      this.rawJson.show(args);
      this.rawJson.setError("");
    } else {
      const args = this.rawJson.parse(true);
      if (!args) {
        this.rawToggle.checked = true; // stay on the text until it parses
        return;
      }
      this.#applyToForm(args);
    }
    this.fieldBox.hidden = this.raw;
    this.rawJson.node.hidden = !this.raw;
    this.extrasNote.hidden = this.raw || !Object.keys(this.extras).length;
  }

  #key(e) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      this.node.requestSubmit();
    }
  }

  #submit(e) {
    e.preventDefault();
    const args = this.collect();
    if (args) this.onSubmit(args);
  }
}
