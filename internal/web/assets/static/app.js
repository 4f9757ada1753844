// mem web: live updates. The server sends a "change" event when the
// database changed; the page fetches itself and swaps its [data-live] parts.
"use strict";
(function () {
  // The project switcher opens the chosen project at once (its button does
  // the same without script).
  const sw = document.getElementById("switch-project");
  if (sw) sw.addEventListener("change", function () { if (sw.value) sw.form.submit(); });
  const live = document.getElementById("live");
  let busy = false, again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const r = await fetch(location.href, { credentials: "same-origin", cache: "no-store" });
      if (!r.ok) return;
      const doc = new DOMParser().parseFromString(await r.text(), "text/html");
      document.querySelectorAll("[data-live]").forEach(function (el) {
        const n = doc.getElementById(el.id);
        if (n && n.innerHTML !== el.innerHTML) el.replaceWith(document.adoptNode(n));
      });
      document.body.dataset.refreshed = String(Date.now());
    } catch (e) {
      // a page that went away (forgotten) stays as it is
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }
  if (!window.EventSource || !document.querySelector("[data-live]")) {
    if (live) live.hidden = true;
    return;
  }
  const es = new EventSource("/events");
  es.addEventListener("change", refresh);
  es.onopen = function () { if (live) live.classList.add("on"); };
  es.onerror = function () { if (live) live.classList.remove("on"); };
})();
