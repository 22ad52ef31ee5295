"""The page-side half of the snapshot: one JavaScript walk of a frame's DOM, run in Tabgate's isolated world
(Page.createIsolatedWorld: the page cannot see or change it), that answers the accessibility facts of each
node it meets — role, name, value, states — in document order, open shadow roots and slots included.

It stops once what it found would outgrow `budget` characters, so its cost follows what the snapshot returns,
not the page's size. It numbers the nodes it answers (the number stays with the node while the document
lives) and keeps a version that a MutationObserver and input events move on, so Python can tell cheaply
whether the page changed since its last outline. Python decides everything else: which nodes make a line, the
format, the cut, and the refs (`core/browser/snapshot.py`, `core/browser/page.py`).

A record is `[id, depth, role, name, value, props]`; `props` is 0 or an object of the states present
(`checked`, `pressed`, `expanded`, `selected`, `disabled`, `required`, `readonly`, `modal`, `focused`,
`invalid`, `level`, `focusable`). The answer: `{doc, version, cut, nodes}` (`doc`: a token new for each
document, so numbers from a reloaded frame are never mistaken for old ones).
"""

WORLD = "tabgate"

# Set-up of the world's state, shared by the three functions below.
_STATE = r"""
  const g = globalThis.__tabgate ??= (() => {
    const s = {doc: Math.random().toString(36).slice(2), version: 0, next: 1,
               ids: new WeakMap(), byId: new Map(), watched: new WeakSet()};
    const bump = () => { s.version += 1; };
    s.watch = (root) => {
      if (s.watched.has(root)) return;
      s.watched.add(root);
      new MutationObserver(bump).observe(root, {subtree: true, childList: true, attributes: true,
                                                characterData: true});
    };
    s.watch(document);
    for (const type of ["input", "change", "toggle", "focusin", "focusout", "mouseover", "mouseout",
                        "transitionend", "animationend"]) {
      document.addEventListener(type, bump, true);
    }
    return s;
  })();
"""

WALK = (
    r"""function (budget, rootId, match) {"""
    + _STATE
    + r"""
  const IMPLICIT = {
    A: (e) => e.hasAttribute("href") ? "link" : null, AREA: (e) => e.hasAttribute("href") ? "link" : null,
    ARTICLE: "article", ASIDE: "complementary", BLOCKQUOTE: "blockquote", BUTTON: "button",
    CAPTION: "caption", DD: "definition", DETAILS: "group", DIALOG: "dialog", DL: "list", DT: "term",
    FIELDSET: "group", FIGURE: "figure", FORM: "form", H1: "heading", H2: "heading", H3: "heading",
    H4: "heading", H5: "heading", H6: "heading", HR: "separator", IFRAME: "Iframe", FRAME: "Iframe",
    LABEL: "LabelText", LEGEND: "legend", LI: "listitem", MAIN: "main", MENU: "list", METER: "meter",
    NAV: "navigation", OL: "list", OPTGROUP: "group", OPTION: "option", OUTPUT: "status", P: "paragraph",
    PRE: "Pre", PROGRESS: "progressbar", SEARCH: "search", SUMMARY: "DisclosureTriangle", TABLE: "table",
    TBODY: "rowgroup", TEXTAREA: "textbox", TFOOT: "rowgroup", THEAD: "rowgroup", TR: "row", UL: "list",
    SECTION: (e) => e.hasAttribute("aria-label") || e.hasAttribute("aria-labelledby") ? "region" : null,
    HEADER: (e) => e.closest("article,aside,main,nav,section") ? null : "banner",
    FOOTER: (e) => e.closest("article,aside,main,nav,section") ? null : "contentinfo",
    IMG: (e) => e.getAttribute("alt") === "" ? "none" : "img",
    SELECT: (e) => e.multiple || e.size > 1 ? "listbox" : "combobox",
    TD: (e) => e.closest("table")?.getAttribute("role") === "grid" ? "gridcell" : "cell",
    TH: (e) => {
      const scope = e.getAttribute("scope");
      if (scope === "row") return "rowheader";
      if (scope === "col") return "columnheader";
      return e.parentElement?.querySelector(":scope > td") ? "rowheader" : "columnheader";
    },
    INPUT: (e) => {
      const types = {button: "button", submit: "button", reset: "button", image: "button", file: "button",
                     checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
                     search: "searchbox", hidden: null};
      return e.type in types ? types[e.type] : "textbox";
    },
  };
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "META", "LINK", "BR",
                        "WBR"]);
  const FROM_CONTENT = new Set(["button", "link", "heading", "option", "tab", "menuitem", "menuitemcheckbox",
                                "menuitemradio", "treeitem", "tooltip", "checkbox", "radio", "switch",
                                "columnheader", "rowheader", "DisclosureTriangle", "legend"]);
  const FIELDS = new Set(["INPUT", "SELECT", "TEXTAREA"]);
  const squash = (text) => (text ?? "").replace(/\s+/g, " ").trim();
  const hiddenAria = (e) => e.getAttribute("aria-hidden") === "true";

  function role(e) {
    const explicit = e.getAttribute("role");
    if (explicit) return explicit.trim().split(/\s+/)[0];
    const implicit = IMPLICIT[e.tagName];
    const found = typeof implicit === "function" ? implicit(e) : implicit;
    if (found) return found;
    if (e.isContentEditable && !e.parentElement?.isContentEditable) return "textbox";
    return "generic";
  }

  function kids(n) {
    if (n.shadowRoot) { g.watch(n.shadowRoot); return n.shadowRoot.childNodes; }
    if (n.tagName === "SLOT") {
      const assigned = n.assignedNodes({flatten: true});
      if (assigned.length) return assigned;
    }
    return n.childNodes;
  }

  // The text a node holds, as a name from content says it (form fields and hidden parts left out).
  function content(n, out) {
    for (const k of kids(n)) {
      if (k.nodeType === 3) out.push(k.data);
      else if (k.nodeType === 1 && !SKIP.has(k.tagName) && !FIELDS.has(k.tagName) && !hiddenAria(k)) {
        if (k.tagName === "IMG") out.push(k.getAttribute("alt") ?? "");
        else {
          const label = k.getAttribute("aria-label");
          if (label) out.push(label); else content(k, out);
        }
      }
    }
    return out;
  }

  function byIds(e, attr) {
    const root = e.getRootNode();
    return squash(e.getAttribute(attr).split(/\s+/)
      .map((id) => root.getElementById?.(id) ?? document.getElementById(id))
      .filter(Boolean).map((r) => r.getAttribute("aria-label") || content(r, []).join(" ")).join(" "));
  }

  function name(e, r) {
    if (e.hasAttribute("aria-labelledby")) { const n = byIds(e, "aria-labelledby"); if (n) return n; }
    const label = squash(e.getAttribute("aria-label"));
    if (label) return label;
    if (e.tagName === "INPUT" && ["button", "submit", "reset"].includes(e.type)) {
      return e.value || {submit: "Submit", reset: "Reset"}[e.type] || "";
    }
    if (e.tagName === "INPUT" && e.type === "image") return e.alt || "Submit";
    if (e.labels?.length) {
      const text = squash([...e.labels].map((l) => content(l, []).join(" ")).join(" "));
      if (text) return text;
    }
    if (e.tagName === "IMG" || e.tagName === "AREA") return squash(e.getAttribute("alt") ?? e.title);
    if (e.tagName === "TABLE") {
      const caption = e.querySelector(":scope > caption");
      if (caption) return squash(content(caption, []).join(" "));
    }
    if (e.tagName === "FIELDSET") {
      const legend = e.querySelector(":scope > legend");
      if (legend) return squash(content(legend, []).join(" "));
    }
    if (e.tagName === "OPTION") return squash(e.label);
    if (FROM_CONTENT.has(r) && !FIELDS.has(e.tagName)) {
      const text = squash(content(e, []).join(" "));
      if (text) return text;
    }
    return squash(e.getAttribute("title") || e.getAttribute("placeholder") ||
                  e.getAttribute("aria-placeholder") || "");
  }

  function deepFocus() {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return active;
  }
  const focus = deepFocus();

  function tri(value) {
    return value === "true" ? true : value === "false" ? false : value === "mixed" ? "mixed" : undefined;
  }

  function props(e, r) {
    const p = {};
    const a = (n) => e.getAttribute(n);
    const checkable = e.tagName === "INPUT" && (e.type === "checkbox" || e.type === "radio");
    if (checkable) p.checked = e.indeterminate ? "mixed" : e.checked;
    else if (a("aria-checked") !== null) p.checked = tri(a("aria-checked"));
    else if (["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"].includes(r)) {
      p.checked = false;
    }
    if (a("aria-pressed") !== null) p.pressed = tri(a("aria-pressed"));
    if (a("aria-expanded") !== null) p.expanded = a("aria-expanded") === "true";
    else if (r === "combobox" && e.tagName === "SELECT") p.expanded = false;
    else if (e.tagName === "SUMMARY" && e.parentElement?.tagName === "DETAILS") {
      p.expanded = e.parentElement.open;
    }
    if (e.tagName === "OPTION" ? e.selected : a("aria-selected") === "true") p.selected = true;
    if (a("aria-disabled") === "true" || (FIELDS.has(e.tagName) || e.tagName === "BUTTON" ||
        e.tagName === "OPTION") && e.matches(":disabled")) p.disabled = true;
    if (e.required || a("aria-required") === "true") p.required = true;
    if ((e.readOnly && (e.tagName === "TEXTAREA" || r === "textbox" || r === "searchbox")) ||
        a("aria-readonly") === "true") p.readonly = true;
    if (a("aria-modal") === "true" || (e.tagName === "DIALOG" && e.matches(":modal"))) p.modal = true;
    if (e === focus) p.focused = true;
    if (a("aria-invalid") && a("aria-invalid") !== "false") p.invalid = true;
    if (r === "heading") p.level = Number(a("aria-level")) || Number(e.tagName[1]) || 2;
    if (e.tabIndex >= 0 && (e.hasAttribute("tabindex") || e.isContentEditable)) p.focusable = true;
    for (const _ in p) return p;
    return 0;
  }

  function value(e, r) {
    if (e.tagName === "SELECT") return e.multiple ? "" : squash(e.selectedOptions[0]?.label ?? "");
    if (e.tagName === "INPUT" && e.type === "password") return "•".repeat(e.value.length);
    if (e.tagName === "TEXTAREA" || (e.tagName === "INPUT" && !["checkbox", "radio", "button", "submit",
        "reset", "image", "file"].includes(e.type))) return e.value;
    if (r === "textbox" && e.isContentEditable) return squash(e.textContent);
    const now = e.getAttribute("aria-valuetext") ?? e.getAttribute("aria-valuenow");
    if (now !== null) return now;
    if (e.tagName === "PROGRESS" || e.tagName === "METER") return String(e.value);
    return "";
  }

  function visible(e) {
    if (e.checkVisibility({visibilityProperty: true})) return true;
    // No box of its own (display: contents) is not hidden: its children may show.
    return getComputedStyle(e).display === "contents";
  }

  const nodes = [];
  let used = 0;
  let cut = false;
  function id(n) {
    let known = g.ids.get(n);
    if (known === undefined) {
      known = g.next++;
      g.ids.set(n, known);
      g.byId.set(known, new WeakRef(n));
    }
    return known;
  }
  // A record holds its node until the answer is made: only the nodes answered are numbered.
  function emit(n, depth, r, nm, val, p, cost) {
    nodes.push([n, depth, r, nm, val, p]);
    used += cost ?? 2 * depth + r.length + nm.length + val.length + 12;
    if (used > budget) cut = true;
  }

  // For a find of plain words on a big page: an element whose text, names and fields cannot hold them is not
  // walked. Only when the words can match nothing but names and text (no role or state word, no quote,
  // bracket or colon of a line), and never above an open shadow root (its text is not in textContent).
  const VOCABULARY = ["text", "statictext", "iframe", "img", "none", "row", "columns", "cell", "gridcell",
    "rowheader", "columnheader", "link", "region", "banner", "contentinfo", "listbox", "combobox", "button",
    "checkbox", "radio", "slider", "spinbutton", "searchbox", "textbox", "generic", "disclosuretriangle",
    "labeltext", "checked", "unchecked", "pressed", "mixed", "expanded", "collapsed", "selected", "disabled",
    "required", "readonly", "modal", "focused", "invalid", "level", "value",
    ...Object.values(IMPLICIT).filter((r) => typeof r === "string").map((r) => r.toLowerCase())];
  const NAMED = "[aria-label],[aria-labelledby],[alt],[title],[placeholder],[aria-valuetext]," +
    "[aria-valuenow],[role],input,select,textarea,iframe,frame";
  function skipper(match) {
    const words = squash(match?.text ?? "").toLowerCase();
    if (!words || /["\[\]:|=]/.test(words)) return null;
    if (VOCABULARY.some((w) => w.includes(words) || words.includes(w))) return null;
    const hosts = new Set();
    for (const e of document.querySelectorAll("*")) {
      if (e.shadowRoot) for (let a = e; a && !hosts.has(a); a = a.parentElement) hosts.add(a);
    }
    return (e) => !hosts.has(e) && !e.matches(NAMED) && !e.querySelector(NAMED) &&
      !squash(e.textContent).toLowerCase().includes(words);
  }
  const skip = match && rootId == null ? skipper(match) : null;
  let skipped = false;

  function walk(n, depth, said, whole) {
    if (cut) return;
    if (n.nodeType === 3) {
      const text = squash(n.data);
      // Text that repeats its element's name is not said again (an estimate: Python decides the lines).
      if (text) emit(n, depth, "StaticText", text, "", 0, text === said ? 0 : text.length + 4);
      return;
    }
    if (n.nodeType !== 1) return;
    if (SKIP.has(n.tagName) || hiddenAria(n) || n.hidden) return;
    if (skip && !whole && skip(n)) { skipped = true; return; }
    if (!visible(n)) return;
    const r = role(n);
    if (r === "none" || r === "presentation" || (n.tagName === "INPUT" && n.type === "hidden")) {
      if (n.tagName !== "IMG") for (const k of kids(n)) walk(k, depth, said, whole);
      return;
    }
    const nm = name(n, r);
    const p = props(n, r);
    if (r === "generic" && !nm && !(p && p.focusable)) {
      for (const k of kids(n)) walk(k, depth, said, whole);
      return;
    }
    said = nm.slice(0, 400);
    emit(n, depth, r, said, value(n, r).slice(0, 400), p);
    if (n.tagName === "SELECT") {
      for (const o of n.querySelectorAll("option")) {
        if (cut) return;
        emit(o, depth + 1, "option", name(o, "option"), "", props(o, "option"));
      }
      return;
    }
    if (r === "Iframe" || r === "img" || FIELDS.has(n.tagName) || n.tagName === "svg") return;
    // A row is one line: all of it is walked once any of it is.
    for (const k of kids(n)) walk(k, depth + 1, said, whole || r === "row");
  }

  // For find on a big page: only the nodes whose facts could match, with what their line needs (the row
  // they sit in, the element whose line a lone text joins) and their ancestors. Python matches the lines.
  function narrow(match) {
    let test;
    if (match.text != null) {
      const wanted = match.text.toLowerCase();
      test = (s) => s.toLowerCase().includes(wanted);
    } else {
      try { const re = new RegExp(match.regex); test = (s) => re.test(s); } catch { return nodes; }
    }
    const parent = new Int32Array(nodes.length);
    const count = new Int32Array(nodes.length);
    const stack = [];
    for (let i = 0; i < nodes.length; i++) {
      const d = nodes[i][1];
      parent[i] = d ? stack[d - 1] : -1;
      if (parent[i] >= 0) count[parent[i]] += 1;
      stack[d] = i;
    }
    const keep = new Uint8Array(nodes.length);
    for (let i = 0; i < nodes.length; i++) {
      const [, , r, nm, val, p] = nodes[i];
      // An iframe stays: the frame under it is searched on its own and shows under it.
      if (r !== "Iframe" && !test(`${r} "${nm}" ${p ? Object.keys(p).join(" ") : ""} ${val}`)) continue;
      let unit = r === "StaticText" && parent[i] >= 0 && count[parent[i]] === 1 ? parent[i] : i;
      for (let a = parent[unit]; a >= 0; a = parent[a]) if (nodes[a][2] === "row") unit = a;
      if (keep[unit] === 2) continue;
      const d = nodes[unit][1];
      for (let j = unit; j < nodes.length && (j === unit || nodes[j][1] > d); j++) keep[j] = 2;
      for (let a = parent[unit]; a >= 0 && !keep[a]; a = parent[a]) keep[a] = 1;
    }
    return nodes.filter((_, i) => keep[i]);
  }

  const version = g.version;
  if (rootId != null) {
    const root = g.byId.get(rootId)?.deref();
    if (!root || !root.isConnected) return {doc: g.doc, version, cut: false, nodes: null};
    walk(root, 0, "", false);
  } else if (document.body) {
    for (const k of kids(document.body)) walk(k, 0, "", false);
  }
  const narrowed = skipped || (match && nodes.length > match.keepAll);
  const answered = narrowed ? narrow(match) : nodes;
  for (const record of answered) record[0] = id(record[0]);
  return {doc: g.doc, version, cut, narrowed, nodes: answered};
}"""
)

# The world's document token and version: has the page changed since the outline Python holds?
VERSION = "function () {" + _STATE + " return [g.doc, g.version]; }"

# The nodes behind some numbers, as an array of remote objects (a node that is gone: null).
NODES = (
    "function (doc, ids) {"
    + _STATE
    + " return ids.map((i) => (g.doc === doc && g.byId.get(i)?.deref()) || null); }"
)
