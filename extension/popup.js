// Tabgate popup: shows what the service worker reports. All text from outside goes in with textContent.
const $ = (id) => document.getElementById(id);

export function describeStatus(s) {
  const py = { booting: "Python booting…", ready: "Python ready", failed: `Python failed: ${s.pythonError ?? ""}` }[s.python];
  const host = {
    connected: "host connected",
    not_installed: "host not installed",
    forbidden: "host refuses this extension",
    exited: "host exited",
    error: `host error: ${s.hostError ?? ""}`,
  }[s.host];
  return `${py} · ${host}`;
}

async function refresh() {
  const s = await chrome.runtime.sendMessage({ type: "status" });
  $("status").textContent = describeStatus(s);
  document.body.dataset.python = s.python;
  document.body.dataset.host = s.host;
}

refresh();
const events = chrome.runtime.connect({ name: "events" });
events.onMessage.addListener((e) => {
  if (e.type === "status") refresh();
});
