// A form generated from a tool's JSON Schema, with a "Raw JSON" view of the same arguments kept in sync.
// The schema decides only how fields look; what is valid is Python's call, so the form sends what the
// person typed and blocks only text it cannot turn into JSON at all, and required fields left empty.
import { el } from "./ui_dom.js";

let formSerial = 0;

// Optional fields come from pydantic as anyOf [X, null]; MCP schemas may list several types.
function resolve(schema) {
  if (!schema || typeof schema !== "object") return {};
  for (const key of ["anyOf", "oneOf"]) {
    if (!Array.isArray(schema[key])) continue;
    const branches = schema[key].filter((s) => s && typeof s === "object" && s.type !== "null");
    if (branches.length === 1) {
      const { [key]: _, ...outer } = schema;
      return resolve({ ...branches[0], ...outer });
    }
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    if (types.length === 1) return { ...schema, type: types[0] };
  }
  return schema;
}

// MCP's titled choices: oneOf/anyOf of {const, title?}.
function constChoices(s) {
  const list = s?.oneOf ?? s?.anyOf;
  return Array.isArray(list) && list.length && list.every((b) => b && typeof b === "object" && "const" in b) ? list : null;
}

// The values a choice field offers and how each is shown, or null when the schema is not a choice.
function choicesOf(s) {
  const titled = constChoices(s);
  if (titled) return { values: titled.map((b) => b.const), labels: titled.map((b) => String(b.title ?? b.const)) };
  const values = s?.enum ?? (s?.const !== undefined ? [s.const] : null);
  if (!Array.isArray(values) || !values.length) return null;
  // enumNames: the older MCP way of titling enum values.
  const names = Array.isArray(s.enumNames) && s.enumNames.length === values.length ? s.enumNames : values;
  return { values, labels: names.map(String) };
}

function kindOf(s) {
  if (constChoices(s)) return "enum";
  if (s.type === "array" && choicesOf(resolve(s.items))) return "multi";
  const enumValues = s.enum ?? (s.const !== undefined ? [s.const] : null);
  if (Array.isArray(enumValues) && enumValues.length && enumValues.every((v) => ["string", "number"].includes(typeof v)))
    return "enum";
  switch (s.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return s.type;
    case "boolean":
      return "boolean";
    case "array": {
      const items = resolve(s.items);
      if (hasProperties(items)) return "list";
      return items.type === "string" && !items.format ? "lines" : "json";
    }
    case "object":
      return hasProperties(s) ? "object" : "json";
    default:
      return "json";
  }
}

// An object schema the form can show field by field (free-form objects stay a JSON box).
function hasProperties(s) {
  return s.type === "object" && s.properties && typeof s.properties === "object" && Object.keys(s.properties).length > 0;
}

const REQUIRED_TEXT = (f) =>
  ({ enum: "Required: choose a value", list: "Required: add an item" })[f.kind] ?? "Required: enter a value";

// A small example built from a schema, shown as a placeholder for JSON fields.
function example(schema, depth = 0) {
  const s = resolve(schema);
  if (depth > 4) return null;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  switch (s.type) {
    case "object": {
      const out = {};
      for (const [name, sub] of Object.entries(s.properties ?? {})) out[name] = example(sub, depth + 1);
      return out;
    }
    case "array":
      return [example(s.items ?? {}, depth + 1)];
    case "string":
      return "";
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    default:
      return null;
  }
}

export class Field {
  // label: what the person reads (tool forms show the argument's name; elicitation forms the field's title).
  constructor(name, rawSchema, required, id, { label = name } = {}) {
    this.name = name;
    this.schema = resolve(rawSchema);
    this.kind = kindOf(this.schema);
    this.required = required;
    this.id = id;
    this.touched = false;
    this.label = String(label);
    this.composite = this.kind === "object" || this.kind === "list";
    this.control = this.#makeControl();
    this.error = el("p", { class: "field-error", id: `${id}-error`, hidden: true });
    const description = this.schema.description ?? rawSchema?.description;
    this.help = description ? el("p", { class: "help", id: `${id}-help` }, String(description)) : null;
    const described = [this.help?.id, this.error.id].filter(Boolean).join(" ");
    this.control.setAttribute("aria-describedby", described);
    if (required && !this.composite) this.control.setAttribute("aria-required", "true"); // not on a group
    const labelNode = el("label", { for: id }, String(label), required ? el("span", { class: "req", title: "required" }, " *") : null);
    if (required) labelNode.append(el("span", { class: "sr-only" }, " (required)"));
    if (this.composite) this.legend.after(...[this.help].filter(Boolean));
    this.node =
      this.kind === "boolean"
        ? el("div", { class: "field field-check", dataset: { name } }, el("div", { class: "check" }, this.control, labelNode), this.help, this.error)
        : this.composite
          ? el("div", { class: "field field-group", dataset: { name } }, this.control, this.error)
          : el("div", { class: "field", dataset: { name } }, labelNode, this.control, this.help, this.error);
    this.node.dataset.kind = this.kind;
    if (this.schema.default !== undefined) this.write(this.schema.default, false);
  }

  #makeControl() {
    const s = this.schema;
    const touch = () => (this.touched = true);
    switch (this.kind) {
      case "enum": {
        const { values, labels } = choicesOf(s);
        this.values = values;
        const select = el("select", { id: this.id, onchange: touch });
        select.append(el("option", { value: "" }, this.required ? "— choose —" : "— not set —"));
        values.forEach((_, i) => select.append(el("option", { value: String(i) }, labels[i])));
        return select;
      }
      case "multi": {
        const { values, labels } = choicesOf(resolve(s.items));
        this.values = values;
        const select = el("select", { id: this.id, multiple: true, size: Math.min(values.length, 6), onchange: touch });
        values.forEach((_, i) => select.append(el("option", { value: String(i) }, labels[i])));
        return select;
      }
      case "boolean":
        return el("input", { type: "checkbox", id: this.id, onchange: touch });
      case "object": {
        const required = new Set(Array.isArray(s.required) ? s.required : []);
        this.parts = Object.entries(s.properties).map(([n, sub], i) => new Field(n, sub, required.has(n), `${this.id}-${i}`));
        this.legend = el("legend", {}, this.label, this.required ? el("span", { class: "req", title: "required" }, " *") : null);
        return el("fieldset", { id: this.id, class: "subform", tabIndex: -1 }, this.legend, this.parts.map((f) => f.node));
      }
      case "list": {
        this.rows = [];
        this.rowSerial = 0;
        this.items = el("ol", { class: "list-items" });
        const noun = resolve(s.items).title ?? "item";
        this.addButton = el("button", { type: "button", class: "add-item", onclick: () => (touch(), this.#addRow(undefined).focusFirst()) }, `Add ${noun}`);
        this.legend = el("legend", {}, this.label, this.required ? el("span", { class: "req", title: "required" }, " *") : null);
        return el("fieldset", { id: this.id, class: "subform", tabIndex: -1 }, this.legend, this.items, this.addButton);
      }
      case "number":
      case "integer":
        return el("input", {
          type: "text",
          id: this.id,
          inputMode: this.kind === "integer" ? "numeric" : "decimal",
          autocomplete: "off",
          oninput: touch,
        });
      case "lines":
        return el("textarea", { id: this.id, rows: 3, placeholder: "one per line", spellcheck: false, oninput: touch });
      case "json": {
        const ex = example(s);
        return el("textarea", {
          id: this.id,
          rows: 4,
          class: "mono",
          spellcheck: false,
          placeholder: ex === null ? "JSON" : JSON.stringify(ex),
          oninput: touch,
        });
      }
      default: {
        const long = (s.maxLength ?? 0) > 200 || ["text", "content", "body", "code", "script"].includes(this.name);
        return long
          ? el("textarea", { id: this.id, rows: 3, oninput: touch })
          : el("input", { type: "text", id: this.id, autocomplete: "off", oninput: touch });
      }
    }
  }

  #addRow(value) {
    const n = ++this.rowSerial;
    const field = new Field(`${this.name}[]`, this.schema.items, true, `${this.id}-r${n}`, { label: "" });
    const remove = el("button", { type: "button", class: "link remove-item" }, "Remove");
    const row = { field, node: el("li", { class: "list-item" }, field.node, remove) };
    remove.addEventListener("click", () => {
      this.rows.splice(this.rows.indexOf(row), 1);
      row.node.remove();
      this.touched = true;
      this.#numberRows();
      this.addButton.focus();
    });
    this.rows.push(row);
    this.items.append(row.node);
    if (value !== undefined) field.write(value);
    this.#numberRows();
    return field;
  }

  // Items are named by their place ("plan 2"), so labels stay right after a removal.
  #numberRows() {
    this.rows.forEach(({ field, node }, i) => {
      const label = `${this.name} ${i + 1}`;
      if (field.legend) field.legend.firstChild.textContent = label;
      else field.node.querySelector("label").firstChild.textContent = label;
      node.querySelector(".remove-item").setAttribute("aria-label", `Remove ${label}`);
    });
  }

  focusFirst() {
    if (this.kind === "object") return this.parts[0]?.focusFirst();
    if (this.kind === "list") return (this.rows[0]?.field ?? this.addButton).focus?.();
    this.control.focus();
  }

  // Whether the form can show this value exactly (otherwise the raw JSON keeps it).
  accepts(v) {
    switch (this.kind) {
      case "object":
        return (
          v !== null && typeof v === "object" && !Array.isArray(v) &&
          Object.keys(v).every((k) => this.parts.some((f) => f.name === k)) &&
          this.parts.every((f) => v[f.name] === undefined || f.accepts(v[f.name]))
        );
      case "list":
        this.probe ??= new Field("item", this.schema.items, true, `${this.id}-probe`);
        return Array.isArray(v) && v.every((x) => this.probe.accepts(x));
      case "string":
        return typeof v === "string";
      case "number":
        return typeof v === "number" && Number.isFinite(v);
      case "integer":
        return Number.isInteger(v);
      case "boolean":
        return typeof v === "boolean";
      case "enum":
        return this.values.includes(v);
      case "multi":
        return Array.isArray(v) && v.every((x) => this.values.includes(x));
      case "lines":
        return Array.isArray(v) && v.every((x) => typeof x === "string" && x !== "" && !x.includes("\n"));
      default:
        return v !== undefined;
    }
  }

  write(v, touched = true) {
    const c = this.control;
    this.touched = touched && v !== undefined;
    if (this.kind === "object") {
      for (const f of this.parts) f.write(v?.[f.name], touched);
      return this.setError("");
    }
    if (this.kind === "list") {
      for (const row of this.rows) row.node.remove();
      this.rows = [];
      for (const x of v ?? []) this.#addRow(x);
      return this.setError("");
    }
    if (this.kind === "boolean") c.checked = v === true;
    else if (v === undefined) c.value = "";
    else if (this.kind === "enum") c.value = String(this.values.indexOf(v));
    else if (this.kind === "multi") for (const o of c.options) o.selected = v.includes(this.values[Number(o.value)]);
    else if (this.kind === "lines") c.value = v.join("\n");
    else if (this.kind === "json") c.value = JSON.stringify(v, null, 2);
    else c.value = String(v);
    this.setError("");
  }

  // The parts of a group: each part's own error is shown next to it; {error} when any is wrong.
  #readParts(fields, checkRequired) {
    const out = [];
    let bad = false;
    for (const f of fields) {
      const r = f.read({ checkRequired });
      if (checkRequired && !r.error && !("value" in r) && f.required) r.error = REQUIRED_TEXT(f);
      f.setError(r.error ?? "");
      bad ||= Boolean(r.error);
      out.push(r);
    }
    return bad ? null : out;
  }

  // {value} to send, {} when left out, {error} when the text cannot be a value.
  read({ checkRequired = true } = {}) {
    const c = this.control;
    switch (this.kind) {
      case "object": {
        const parts = this.#readParts(this.parts, checkRequired && (this.required || this.parts.some((f) => "value" in f.read({ checkRequired: false }))));
        if (!parts) return { error: "Check the fields marked in this group" };
        const value = {};
        parts.forEach((r, i) => "value" in r && (value[this.parts[i].name] = r.value));
        return Object.keys(value).length || this.required ? { value } : {};
      }
      case "list": {
        const parts = this.#readParts(this.rows.map((row) => row.field), checkRequired);
        if (!parts) return { error: "Check the items marked" };
        return parts.length || this.touched ? { value: parts.map((r) => r.value) } : {};
      }
      case "boolean":
        return this.touched || this.required || this.schema.default !== undefined ? { value: c.checked } : {};
      case "enum":
        return c.value === "" ? {} : { value: this.values[Number(c.value)] };
      case "multi": {
        const chosen = [...c.selectedOptions].map((o) => this.values[Number(o.value)]);
        return chosen.length || this.touched || this.required ? { value: chosen } : {};
      }
      case "number":
      case "integer": {
        const text = c.value.trim();
        if (text === "") return {};
        const n = Number(text);
        if (!Number.isFinite(n)) return { error: "Enter a number" };
        if (this.kind === "integer" && !Number.isInteger(n)) return { error: "Enter a whole number" };
        return { value: n };
      }
      case "lines": {
        const lines = c.value.split("\n").filter((line) => line.trim() !== "");
        return lines.length || this.touched ? { value: lines } : {};
      }
      case "json": {
        if (c.value.trim() === "") return {};
        try {
          return { value: JSON.parse(c.value) };
        } catch (e) {
          return { error: `Not valid JSON: ${e.message}` };
        }
      }
      default:
        return c.value === "" ? {} : { value: c.value };
    }
  }

  setError(message) {
    this.error.textContent = message;
    this.error.hidden = !message;
    this.control.setAttribute("aria-invalid", message ? "true" : "false");
  }
}

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
    this.rawText = el("textarea", {
      id: "raw-json",
      class: "mono",
      rows: 8,
      spellcheck: false,
      "aria-describedby": "raw-error",
      oninput: () => this.#rawEdited(),
    });
    this.rawError = el("p", { class: "field-error", id: "raw-error", hidden: true });
    this.rawBox = el(
      "div",
      { class: "field", id: "raw-box", hidden: true },
      el("label", { for: "raw-json" }, "Arguments (JSON)"),
      this.rawText,
      this.rawError,
    );
    this.runButton = el("button", { type: "submit", id: "run", class: "primary" }, "Run");
    this.node = el(
      "form",
      { id: "tool-form", noValidate: true, onsubmit: (e) => this.#submit(e), onkeydown: (e) => this.#key(e) },
      this.fieldBox,
      this.extrasNote,
      this.rawBox,
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
    if (this.raw) this.rawText.focus();
    else if (this.fields[0]) this.fields[0].focusFirst();
    else this.runButton.focus();
  }

  // The arguments as an object, or null after showing what is wrong.
  collect() {
    return this.raw ? this.#collectRaw() : this.#collectForm();
  }

  #collectRaw() {
    const args = this.#parseRaw(true);
    if (!args) return null;
    const missing = this.fields.filter((f) => f.required && !f.node.hidden && !(f.name in args)).map((f) => f.name);
    if (!missing.length) return args;
    this.rawError.textContent = `Required, but missing: ${missing.join(", ")}`;
    this.rawError.hidden = false;
    this.rawText.setAttribute("aria-invalid", "true");
    this.rawText.focus();
    return null;
  }

  // checkRequired: false when the arguments only move to the raw JSON view, where they may still be incomplete.
  #collectForm({ checkRequired = true } = {}) {
    const args = {};
    let ok = true;
    let firstBad = null;
    for (const f of this.fields) {
      if (f.node.hidden) continue; // a field the chosen action does not use
      const r = f.read({ checkRequired });
      if (checkRequired && !r.error && !("value" in r) && f.required) r.error = REQUIRED_TEXT(f);
      f.setError(r.error ?? "");
      if (r.error) {
        ok = false;
        firstBad ??= f.control;
      } else if ("value" in r) args[f.name] = r.value;
    }
    if (!ok) {
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
    if (this.raw) this.rawText.value = JSON.stringify(args, null, 2);
    this.#showActionFields();
  }

  #parseRaw(focus) {
    let value;
    let message = "";
    try {
      value = JSON.parse(this.rawText.value);
      if (value === null || typeof value !== "object" || Array.isArray(value)) message = "The arguments must be a JSON object: { … }";
    } catch (e) {
      message = `Not valid JSON: ${e.message}`;
    }
    this.rawError.textContent = message;
    this.rawError.hidden = !message;
    this.rawText.setAttribute("aria-invalid", message ? "true" : "false");
    if (message) {
      if (focus) this.rawText.focus();
      return null;
    }
    return value;
  }

  #rawEdited() {
    const args = this.#parseRaw(false);
    if (args) this.#applyToForm(args);
  }

  #applyToForm(args) {
    const text = this.rawText.value;
    this.setArguments(args);
    this.rawText.value = text; // keep the person's own formatting while they type
  }

  #toggleRaw() {
    if (this.raw) {
      const args = this.#collectForm({ checkRequired: false });
      if (!args) {
        this.rawToggle.checked = false;
        return;
      }
      this.rawText.value = JSON.stringify(args, null, 2);
      this.rawError.hidden = true;
      this.rawText.setAttribute("aria-invalid", "false");
    } else {
      const args = this.#parseRaw(true);
      if (!args) {
        this.rawToggle.checked = true; // stay on the text until it parses
        return;
      }
      this.#applyToForm(args);
    }
    this.fieldBox.hidden = this.raw;
    this.rawBox.hidden = !this.raw;
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
