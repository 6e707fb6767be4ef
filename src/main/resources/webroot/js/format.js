"use strict";
// Small helpers to render values safely (textContent only) and readably.
(function () {
  const A = (window.Amber = window.Amber || {});
  const F = (A.fmt = {});

  F.number = (n) => (n == null ? "–" : Number(n).toLocaleString("en-US"));
  F.decimal = (n, d) => (n == null ? "–" : Number(n).toFixed(d == null ? 2 : d));
  F.time = (ms) => new Date(ms).toISOString().substring(11, 23);
  F.dateTime = (ms) => new Date(ms).toISOString().replace("T", " ").substring(0, 19) + " UTC";
  F.ago = (ms) => {
    const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
    if (s < 60) return s + " s ago";
    if (s < 3600) return Math.round(s / 60) + " min ago";
    if (s < 86400) return Math.round(s / 3600) + " h ago";
    return Math.round(s / 86400) + " d ago";
  };
  F.metrics = (m) =>
    m ? Object.entries(m).map(([k, v]) => k + "=" + (Math.round(v * 100) / 100)).join("  ") : "";

  /** The service's default rule; the fleet list carries the configured answer as `abnormal`. */
  F.isAbnormal = (e) =>
    (e.code != null && e.code >= 500) ||
    ["fault", "error", "alarm"].includes(String(e.status || "").toLowerCase());

  /** A table cell with text. */
  F.td = (text, title) => {
    const td = document.createElement("td");
    td.textContent = text == null ? "" : String(text);
    if (title) td.title = title;
    return td;
  };

  /** An element with text. */
  F.el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text != null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  };

  F.clear = (node) => {
    while (node.firstChild) node.removeChild(node.firstChild);
  };

  F.deviceHref = (id) => "#/device/" + encodeURIComponent(id);

  /** Stable colours for statuses, amber family, red for abnormal ones. */
  const PALETTE = ["#d98e04", "#5b8def", "#2e9e6b", "#9b59b6", "#16a0b5", "#7f8c8d", "#e67e22"];
  F.colour = (name, i, bad) => (bad ? "#c0392b" : PALETTE[i % PALETTE.length]);
})();
