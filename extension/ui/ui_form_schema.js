// What a JSON Schema means for a form: which kind of field shows it, the choices it offers, a placeholder
// example. The schema decides only how fields look; what is valid is Python's call.

// Optional fields come from pydantic as anyOf [X, null]; MCP schemas may list several types.
export function resolve(schema) {
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
export function choicesOf(s) {
  const titled = constChoices(s);
  if (titled) return { values: titled.map((b) => b.const), labels: titled.map((b) => String(b.title ?? b.const)) };
  const values = s?.enum ?? (s?.const !== undefined ? [s.const] : null);
  if (!Array.isArray(values) || !values.length) return null;
  // enumNames: the older MCP way of titling enum values.
  const names = Array.isArray(s.enumNames) && s.enumNames.length === values.length ? s.enumNames : values;
  return { values, labels: names.map(String) };
}

// The kind of field for a resolved schema: enum, multi, string, number, integer, boolean, object (a group of
// fields), list (a group per item), lines (one string per line) or json (a JSON text box).
export function kindOf(s) {
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

// A small example built from a schema, shown as a placeholder for JSON fields.
export function example(schema, depth = 0) {
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
