// A field's value: whether the form can show one exactly, putting one into its control, and reading back
// what to send. Reading only turns text into JSON values; whether they are valid is Python's call, so a
// field is marked only when its text cannot be a value at all or it is required and left empty.

const requiredText = (f) =>
  ({ enum: "Required: choose a value", list: "Required: add an item" })[f.kind] ?? "Required: enter a value";

// One field read and its error shown next to it: {value}, {} when left out, {error}.
export function readMarked(f, checkRequired) {
  const r = f.read({ checkRequired });
  if (checkRequired && !r.error && !("value" in r) && f.required) r.error = requiredText(f);
  f.setError(r.error ?? "");
  return r;
}

// The parts of a group, each marked on its own; null when any is wrong.
function readParts(fields, checkRequired) {
  const out = fields.map((f) => readMarked(f, checkRequired));
  return out.some((r) => r.error) ? null : out;
}

// Whether the form can show this value exactly (otherwise the raw JSON keeps it).
export function accepts(field, v) {
  switch (field.kind) {
    case "object":
      return (
        v !== null && typeof v === "object" && !Array.isArray(v) &&
        Object.keys(v).every((k) => field.parts.some((f) => f.name === k)) &&
        field.parts.every((f) => v[f.name] === undefined || f.accepts(v[f.name]))
      );
    case "list":
      return Array.isArray(v) && v.every((x) => field.itemProbe().accepts(x));
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "integer":
      return Number.isInteger(v);
    case "boolean":
      return typeof v === "boolean";
    case "enum":
      return field.values.includes(v);
    case "multi":
      return Array.isArray(v) && v.every((x) => field.values.includes(x));
    case "lines":
      return Array.isArray(v) && v.every((x) => typeof x === "string" && x !== "" && !x.includes("\n"));
    default:
      return v !== undefined;
  }
}

// Shows v in the control of a field that is not a group (undefined empties it).
export function writeControl(field, v) {
  const c = field.control;
  if (field.kind === "boolean") c.checked = v === true;
  else if (v === undefined) c.value = "";
  else if (field.kind === "enum") c.value = String(field.values.indexOf(v));
  else if (field.kind === "multi") for (const o of c.options) o.selected = v.includes(field.values[Number(o.value)]);
  else if (field.kind === "lines") c.value = v.join("\n");
  else if (field.kind === "json") c.value = JSON.stringify(v, null, 2);
  else c.value = String(v);
}

// {value} to send, {} when left out, {error} when the text cannot be a value.
export function readValue(field, { checkRequired = true } = {}) {
  const c = field.control;
  switch (field.kind) {
    case "object": {
      const anySet = () => field.parts.some((f) => "value" in f.read({ checkRequired: false }));
      const parts = readParts(field.parts, checkRequired && (field.required || anySet()));
      if (!parts) return { error: "Check the fields marked in this group" };
      const value = {};
      parts.forEach((r, i) => "value" in r && (value[field.parts[i].name] = r.value));
      return Object.keys(value).length || field.required ? { value } : {};
    }
    case "list": {
      const parts = readParts(field.rows.map((row) => row.field), checkRequired);
      if (!parts) return { error: "Check the items marked" };
      return parts.length || field.touched ? { value: parts.map((r) => r.value) } : {};
    }
    case "boolean":
      return field.touched || field.required || field.schema.default !== undefined ? { value: c.checked } : {};
    case "enum":
      return c.value === "" ? {} : { value: field.values[Number(c.value)] };
    case "multi": {
      const chosen = [...c.selectedOptions].map((o) => field.values[Number(o.value)]);
      return chosen.length || field.touched || field.required ? { value: chosen } : {};
    }
    case "number":
    case "integer": {
      const text = c.value.trim();
      if (text === "") return {};
      const n = Number(text);
      if (!Number.isFinite(n)) return { error: "Enter a number" };
      if (field.kind === "integer" && !Number.isInteger(n)) return { error: "Enter a whole number" };
      return { value: n };
    }
    case "lines": {
      const lines = c.value.split("\n").filter((line) => line.trim() !== "");
      return lines.length || field.touched ? { value: lines } : {};
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
