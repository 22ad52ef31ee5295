// Python data as the plain JS data JSON used to carry: dicts become objects, None null, and an int too big
// for a double a number (as JSON.parse made it). Measured faster than JSON text for big answers
// (docs/benchmarks.md); str, numbers and bools arrive converted already.
const TO_JS = { dict_converter: Object.fromEntries, create_pyproxies: false };
function plain(value) {
  if (value === undefined) return null;
  if (typeof value === "bigint") return Number(value);
  if (value !== null && typeof value === "object") {
    for (const key of Object.keys(value)) value[key] = plain(value[key]);
  }
  return value;
}
export function fromPython(value) {
  return plain(typeof value?.toJs === "function" ? value.toJs(TO_JS) : value);
}
