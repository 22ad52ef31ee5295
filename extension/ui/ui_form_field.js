// One field of a form built from a JSON Schema: its label, help and error line around the control for its
// kind; objects as a group of fields and lists of them item by item, each item a field of its own.
import { el } from "./ui_dom.js";
import { groupFrame, labelFor, makeControl } from "./ui_form_controls.js";
import { kindOf, resolve } from "./ui_form_schema.js";
import { accepts, readValue, writeControl } from "./ui_form_values.js";

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
    const touch = () => (this.touched = true);
    if (this.kind === "object") this.#makeObject();
    else if (this.kind === "list") this.#makeList(touch);
    else ({ control: this.control, values: this.values } = makeControl(this, touch));
    this.error = el("p", { class: "field-error", id: `${id}-error`, hidden: true });
    const description = this.schema.description ?? rawSchema?.description;
    this.help = description ? el("p", { class: "help", id: `${id}-help` }, String(description)) : null;
    const described = [this.help?.id, this.error.id].filter(Boolean).join(" ");
    this.control.setAttribute("aria-describedby", described);
    if (required && !this.composite) this.control.setAttribute("aria-required", "true"); // not on a group
    const labelNode = labelFor(id, this.label, required);
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

  #makeObject() {
    const s = this.schema;
    const required = new Set(Array.isArray(s.required) ? s.required : []);
    this.parts = Object.entries(s.properties).map(([n, sub], i) => new Field(n, sub, required.has(n), `${this.id}-${i}`));
    ({ legend: this.legend, control: this.control } = groupFrame(this.id, this.label, this.required, this.parts.map((f) => f.node)));
  }

  #makeList(touch) {
    this.rows = [];
    this.rowSerial = 0;
    this.items = el("ol", { class: "list-items" });
    const noun = resolve(this.schema.items).title ?? "item";
    this.addButton = el("button", { type: "button", class: "add-item", onclick: () => (touch(), this.#addRow(undefined).focusFirst()) }, `Add ${noun}`);
    ({ legend: this.legend, control: this.control } = groupFrame(this.id, this.label, this.required, this.items, this.addButton));
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

  // A field for one item of a list, never shown: it says whether a value fits an item.
  itemProbe() {
    this.probe ??= new Field("item", this.schema.items, true, `${this.id}-probe`);
    return this.probe;
  }

  focusFirst() {
    if (this.kind === "object") return this.parts[0]?.focusFirst();
    if (this.kind === "list") return (this.rows[0]?.field ?? this.addButton).focus?.();
    this.control.focus();
  }

  // Whether the form can show this value exactly (otherwise the raw JSON keeps it).
  accepts(v) {
    return accepts(this, v);
  }

  write(v, touched = true) {
    this.touched = touched && v !== undefined;
    if (this.kind === "object") for (const f of this.parts) f.write(v?.[f.name], touched);
    else if (this.kind === "list") {
      for (const row of this.rows) row.node.remove();
      this.rows = [];
      for (const x of v ?? []) this.#addRow(x);
    } else writeControl(this, v);
    this.setError("");
  }

  // {value} to send, {} when left out, {error} when the text cannot be a value.
  read({ checkRequired = true } = {}) {
    return readValue(this, { checkRequired });
  }

  setError(message) {
    this.error.textContent = message;
    this.error.hidden = !message;
    this.control.setAttribute("aria-invalid", message ? "true" : "false");
  }
}
