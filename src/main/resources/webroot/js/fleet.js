"use strict";
// Fleet: every device's current state from GET /api/v1/devices, filtered by type, status and
// abnormal, paged with the signed cursor (a stack of cursors gives "previous").
(function () {
  const A = (window.Amber = window.Amber || {});
  const F = A.fmt;
  const $ = (id) => document.getElementById(id);
  let filter = {};
  let cursors = [null]; // cursors[i] opens page i
  let page = 0;
  let timer = null;

  function query() {
    const q = new URLSearchParams();
    ["type", "status", "abnormal"].forEach((k) => filter[k] && q.set(k, filter[k]));
    q.set("limit", filter.limit || "50");
    if (cursors[page]) q.set("cursor", cursors[page]);
    return q.toString();
  }

  function row(d) {
    const tr = document.createElement("tr");
    tr.dataset.device = d.deviceId;
    tr.className = "clickable" + (d.abnormal ? " abnormal" : "");
    const name = F.td("");
    const link = F.el("a", d.deviceId);
    link.href = F.deviceHref(d.deviceId);
    name.appendChild(link);
    if (d.abnormal) name.appendChild(F.el("span", "ABNORMAL", "tag"));
    tr.append(
      name,
      F.td(d.deviceType),
      F.td(d.status),
      F.td(d.code),
      F.td(F.ago(d.lastSeen), F.dateTime(d.lastSeen)),
      F.td(F.metrics(d.metrics))
    );
    tr.addEventListener("click", (ev) => {
      if (ev.target.tagName !== "A") location.hash = F.deviceHref(d.deviceId);
    });
    return tr;
  }

  async function load() {
    const note = $("fleet-note");
    try {
      const r = await A.api("/api/v1/devices?" + query());
      const rows = $("fleet-rows");
      F.clear(rows);
      r.items.forEach((d) => rows.appendChild(row(d)));
      cursors[page + 1] = r.next;
      cursors.length = page + 2;
      $("fleet-next").disabled = !r.next;
      $("fleet-prev").disabled = page === 0;
      $("fleet-page").textContent = "page " + (page + 1);
      const abnormal = r.items.filter((d) => d.abnormal).length;
      note.textContent =
        r.items.length === 0
          ? "No device matches."
          : r.items.length + " devices" + (abnormal ? ", " + abnormal + " abnormal" : "") + ", ordered by id.";
      note.className = "muted";
    } catch (e) {
      note.textContent = e.message;
      note.className = "error";
    }
  }

  function fromHash(params) {
    filter = {
      type: params.get("type") || "",
      status: params.get("status") || "",
      abnormal: params.get("abnormal") || "",
      limit: params.get("limit") || "50",
    };
    const form = $("fleet-form");
    Object.entries(filter).forEach(([k, v]) => (form.elements[k].value = v));
    cursors = [null];
    page = 0;
  }

  $("fleet-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const form = new FormData(ev.target);
    const q = new URLSearchParams();
    ["type", "status", "abnormal", "limit"].forEach((k) => {
      const v = String(form.get(k) || "").trim();
      if (v) q.set(k, v);
    });
    location.hash = "#/fleet?" + q.toString();
  });
  $("fleet-next").addEventListener("click", () => {
    page++;
    load();
  });
  $("fleet-prev").addEventListener("click", () => {
    page = Math.max(0, page - 1);
    load();
  });
  $("fleet-refresh").addEventListener("click", load);

  A.views = A.views || {};
  A.views.fleet = {
    show(params) {
      fromHash(params);
      load();
      timer = setInterval(load, 15000);
    },
    hide() {
      clearInterval(timer);
    },
  };
})();
