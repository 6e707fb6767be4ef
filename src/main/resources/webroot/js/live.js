"use strict";
// Live feed: every durable event as it arrives, filtered by devices, types and codes.
(function () {
  const A = (window.Amber = window.Amber || {});
  const F = A.fmt;
  const $ = (id) => document.getElementById(id);
  const MAX_ROWS = 300;
  let feed = null;
  let paused = false;
  let received = 0;

  function addRow(e) {
    received++;
    $("counts").textContent = F.number(received) + " events received";
    if (paused) return;
    const rows = $("feed");
    const tr = document.createElement("tr");
    tr.dataset.device = e.deviceId;
    tr.className = "clickable" + (F.isAbnormal(e) ? " abnormal" : "");
    tr.append(
      F.td(F.time(e.ts)),
      F.td(e.deviceId),
      F.td(e.deviceType),
      F.td(e.status),
      F.td(e.code),
      F.td(F.metrics(e.metrics))
    );
    tr.addEventListener("click", () => (location.hash = F.deviceHref(e.deviceId)));
    rows.insertBefore(tr, rows.firstChild);
    while (rows.children.length > MAX_ROWS) rows.removeChild(rows.lastChild);
  }

  function connect() {
    if (feed) feed.close();
    const form = new FormData($("filters"));
    const params = {};
    ["devices", "types", "codes"].forEach((k) => {
      const v = String(form.get(k) || "").replace(/\s+/g, "");
      if (v) params[k] = v;
    });
    feed = A.openFeed(params, addRow, (text, cls) => {
      $("status").textContent = text;
      $("status").className = "pill " + cls;
    });
  }

  $("filters").addEventListener("submit", (ev) => {
    ev.preventDefault();
    connect();
  });
  $("live-pause").addEventListener("click", (ev) => {
    paused = !paused;
    ev.target.textContent = paused ? "Resume" : "Pause";
  });

  A.views = A.views || {};
  A.views.live = {
    show() {
      connect();
    },
    hide() {
      if (feed) feed.close();
      feed = null;
      $("status").textContent = "idle";
      $("status").className = "pill";
    },
  };
})();
