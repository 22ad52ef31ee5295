// The elements a field is drawn with: its label, the control for its kind and the frame of a group.
// Text from schemas is untrusted: it only ever goes in as text.
import { el } from "./ui_dom.js";
import { choicesOf, example, resolve } from "./ui_form_schema.js";

const requiredMark = (required) => (required ? el("span", { class: "req", title: "required" }, " *") : null);

export function labelFor(id, label, required) {
  const node = el("label", { for: id }, label, requiredMark(required));
  if (required) node.append(el("span", { class: "sr-only" }, " (required)"));
  return node;
}

// A group (an object's fields, a list's items) is a fieldset named by its legend.
export function groupFrame(id, label, required, ...children) {
  const legend = el("legend", {}, label, requiredMark(required));
  return { legend, control: el("fieldset", { id, class: "subform", tabIndex: -1 }, legend, ...children) };
}

// {control, values?} for a field that is not a group; values are what a choice's options stand for (an
// option's value is its index). touch runs on every edit.
export function makeControl({ kind, schema: s, id, name, required }, touch) {
  switch (kind) {
    case "enum": {
      const { values, labels } = choicesOf(s);
      const control = el("select", { id, onchange: touch });
      control.append(el("option", { value: "" }, required ? "— choose —" : "— not set —"));
      values.forEach((_, i) => control.append(el("option", { value: String(i) }, labels[i])));
      return { control, values };
    }
    case "multi": {
      const { values, labels } = choicesOf(resolve(s.items));
      const control = el("select", { id, multiple: true, size: Math.min(values.length, 6), onchange: touch });
      values.forEach((_, i) => control.append(el("option", { value: String(i) }, labels[i])));
      return { control, values };
    }
    case "boolean":
      return { control: el("input", { type: "checkbox", id, onchange: touch }) };
    case "number":
    case "integer":
      return {
        control: el("input", {
          type: "text",
          id,
          inputMode: kind === "integer" ? "numeric" : "decimal",
          autocomplete: "off",
          oninput: touch,
        }),
      };
    case "lines":
      return { control: el("textarea", { id, rows: 3, placeholder: "one per line", spellcheck: false, oninput: touch }) };
    case "json": {
      const ex = example(s);
      return {
        control: el("textarea", {
          id,
          rows: 4,
          class: "mono",
          spellcheck: false,
          placeholder: ex === null ? "JSON" : JSON.stringify(ex),
          oninput: touch,
        }),
      };
    }
    default: {
      const long = (s.maxLength ?? 0) > 200 || ["text", "content", "body", "code", "script"].includes(name);
      return {
        control: long
          ? el("textarea", { id, rows: 3, oninput: touch })
          : el("input", { type: "text", id, autocomplete: "off", oninput: touch }),
      };
    }
  }
}
