"""An MCP server that serves an App (`io.modelcontextprotocol/ui`), written with the SDK's `Apps()`.

`counter` shows a View (`ui://counter/view.html`): it shows the call's input and result, its "Bump" button
calls `bump` back (an App-only tool that changes the count, so the person is asked), its "Docs" button asks
to open `link` from its tool input, and it writes down what it could reach from its sandbox: chrome.*, the
popup's DOM, and `probe`, a site its CSP does not name; given `leave`, it navigates its own frame there.
`secret` is for models only, so the View's call to it is refused; `apps_negotiated` says whether the client
advertised Apps. Run as `python app_server.py` (stdio)."""

from __future__ import annotations

from mcp.server.apps import Apps, ResourceCsp, client_supports_apps
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

VIEW_URI = "ui://counter/view.html"
count = 0

VIEW = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Counter</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 8px; color: #1b1b1f; background: #fff; }
  body.dark { color: #e8eaed; background: #202124; }
  output { font-weight: 600; }
  button { font: inherit; padding: 2px 10px; }
</style></head>
<body>
<h1 style="font-size:15px;margin:0 0 6px">Counter</h1>
<p>Input: <output id="input">none yet</output></p>
<p>Result: <output id="result">none yet</output></p>
<p>Theme: <output id="theme">?</output></p>
<p><button id="bump" type="button">Bump</button> <button id="secret" type="button">Secret</button>
   <button id="docs" type="button">Docs</button>
   <output id="called"></output></p>
<p>Reach: <output id="reach"></output></p>
<script>
  let next = 1;
  const waiting = new Map();
  const $ = (id) => document.getElementById(id);
  function request(method, params) {
    const id = next++;
    window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
    return new Promise((resolve) => waiting.set(id, resolve));
  }
  function text(result) {
    return (result?.content ?? []).map((c) => c.text ?? "").join(" ");
  }
  function reach(word) { $("reach").textContent += word + " "; }
  window.addEventListener("message", async (event) => {
    const m = event.data;
    if (m?.method === undefined && waiting.has(m?.id)) { waiting.get(m.id)(m); waiting.delete(m.id); return; }
    if (m?.method === "ui/notifications/tool-input") {
      $("input").textContent = JSON.stringify(m.params.arguments);
      document.body.dataset.link = m.params.arguments.link ?? "";
      const probe = m.params.arguments.probe;
      if (probe) {
        try { await fetch(probe, { mode: "no-cors" }); reach("fetch-ok"); } catch { reach("fetch-blocked"); }
      }
      if (m.params.arguments.leave) location.href = m.params.arguments.leave;  // leave its CSP behind
    } else if (m?.method === "ui/notifications/tool-result") {
      $("result").textContent = text(m.params);
    } else if (m?.method === "ui/notifications/host-context-changed" && m.params.theme) {
      $("theme").textContent = m.params.theme;
      document.body.className = m.params.theme;
    } else if (m?.method === "ui/resource-teardown") {
      document.body.dataset.teardown = "seen";
      window.parent.postMessage({ jsonrpc: "2.0", id: m.id, result: {} }, "*");
    }
  });
  $("bump").addEventListener("click", async () => {
    const answer = await request("tools/call", { name: "bump", arguments: { by: 1 } });
    $("called").textContent = answer.error ? "refused: " + answer.error.message : text(answer.result);
  });
  $("docs").addEventListener("click", async () => {
    const answer = await request("ui/open-link", { url: document.body.dataset.link });
    $("called").textContent = answer.error ? "refused: " + answer.error.message : "opened";
  });
  $("secret").addEventListener("click", async () => {
    const answer = await request("tools/call", { name: "secret", arguments: {} });
    $("called").textContent = answer.error ? "refused: " + answer.error.message : text(answer.result);
  });
  reach(typeof chrome !== "undefined" && chrome.runtime?.id ? "chrome-yes" : "chrome-no");
  try { reach(window.parent.document ? "popup-dom-yes" : "popup-dom-no"); } catch { reach("popup-dom-no"); }
  try { reach(window.top.document ? "top-dom-yes" : "top-dom-no"); } catch { reach("top-dom-no"); }
  (async () => {
    const init = await request("ui/initialize", {
      protocolVersion: "2026-01-26", appInfo: { name: "counter", version: "1" }, appCapabilities: {},
    });
    const theme = init.result?.hostContext?.theme ?? "?";
    $("theme").textContent = theme;
    document.body.className = theme;
    window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} }, "*");
    window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/size-changed",
                                params: { width: 400, height: document.body.scrollHeight + 16 } }, "*");
  })();
</script>
</body></html>
"""

apps = Apps()


@apps.tool(resource_uri=VIEW_URI, title="Counter", description="Shows the counter as an App.")
def counter(start: int = 0, probe: str = "", leave: str = "", link: str = "") -> str:
    global count
    count = start
    return f"counter at {count}"


@apps.tool(
    resource_uri=VIEW_URI,
    visibility=["app"],
    title="Bump",
    description="Adds to the counter (its App's button).",
    annotations=ToolAnnotations(readOnlyHint=False),
)
def bump(by: int = 1) -> str:
    global count
    count += by
    return f"bumped to {count}"


@apps.tool(resource_uri=VIEW_URI, visibility=["model"], title="Secret", description="For models only.")
def secret() -> str:
    return "the secret"


apps.add_html_resource(
    VIEW_URI, VIEW, title="Counter", csp=ResourceCsp(connect_domains=["https://api.example.test"])
)
# The SDK reads the Apps() registrations when the server is built: they come first (a trap of SDK 2.3).
mcp = MCPServer("counter", version="1.0", extensions=[apps])


@mcp.tool(title="Apps Negotiated", description="Whether this client advertised MCP Apps.")
def apps_negotiated(ctx: Context) -> str:
    return "yes" if client_supports_apps(ctx) else "no"


if __name__ == "__main__":
    mcp.run()
