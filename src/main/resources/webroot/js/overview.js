"use strict";
// Overview: events per second (from the day's counters), devices seen and abnormal devices in the
// last hour, today's status and type mix, and the last seven days; refreshed every 5 seconds.
(function () {
  const A = (window.Amber = window.Amber || {});
  const F = A.fmt;
  const $ = (id) => document.getElementById(id);
  const REFRESH_MS = 5000;
  let timer = null;
  let lastDays = 0;
  let lastActivity = 0; // activity reads every device row of two hours: every 30 s is enough
  let previous = null; // {at, total} of the last counter sample
  let daysZoomKept = false; // a zoom into the week stays across refreshes, not across visits
  const eps = []; // [{at, value}] events per second, the last 60 samples

  function day(offset) {
    const d = new Date();
    d.setUTCDate(d.getUTCDate() + offset);
    return d.toISOString().substring(0, 10);
  }

  function showToday(stats) {
    $("ov-today").textContent = F.number(stats.total);
    const now = Date.now();
    if (previous && stats.total >= previous.total && now > previous.at) {
      const rate = ((stats.total - previous.total) * 1000) / (now - previous.at);
      eps.push({ at: now, value: rate });
      if (eps.length > 60) eps.shift();
      $("ov-eps").textContent = rate < 10 ? rate.toFixed(1) : F.number(Math.round(rate));
      A.charts.spark($("ov-eps-chart"), eps, "events/s");
    }
    previous = { at: now, total: stats.total };
    const statuses = Object.entries(stats.byStatus).sort((a, b) => b[1] - a[1]);
    const mix = $("ov-status-mix");
    const legend = $("ov-status-legend");
    F.clear(mix);
    F.clear(legend);
    const sum = statuses.reduce((n, s) => n + s[1], 0) || 1;
    statuses.forEach(([status, n], i) => {
      const bad = F.isAbnormal({ status: status });
      const colour = F.colour(status, i, bad);
      const seg = document.createElement("div");
      seg.style.width = (100 * n) / sum + "%";
      seg.style.background = colour;
      seg.dataset.status = status;
      seg.title = status + ": " + F.number(n);
      mix.appendChild(seg);
      const li = document.createElement("li");
      const dot = document.createElement("i");
      dot.style.background = colour;
      const link = F.el("a", status + " " + F.number(n) + " (" + ((100 * n) / sum).toFixed(1) + "%)");
      link.href = "#/fleet?status=" + encodeURIComponent(status);
      li.append(dot, link);
      legend.appendChild(li);
    });
    const types = Object.entries(stats.byType).sort((a, b) => b[1] - a[1]);
    A.charts.bars(
      $("ov-types"),
      types.slice(0, 10).map(([type, n]) => ({
        key: type,
        label: type,
        value: n,
        href: "#/fleet?type=" + encodeURIComponent(type),
      }))
    );
    $("ov-today-sub").textContent =
      Object.keys(stats.byCode).length + " codes, " + types.length + " device types";
    A.knownValues(types.map((t) => t[0]), statuses.map((s) => s[0]));
  }

  function showAbnormal(r) {
    $("ov-abnormal").textContent = F.number(r.devices);
    A.charts.bars(
      $("ov-abnormal-codes"),
      r.byCode.map((c) => ({
        key: c.code == null ? "status" : String(c.code),
        label: c.code == null ? "by status only" : "code " + c.code,
        value: c.devices,
        bad: true,
        detail: c.deviceIds.slice(0, 8).join(", ") + (c.devices > 8 ? ", …" : ""),
      }))
    );
    $("ov-abnormal-note").textContent =
      r.devices === 0 ? "No abnormal device in the last hour." : r.truncated ? "More devices than counted." : "";
  }

  function showActivity(r) {
    $("ov-devices").textContent = F.number(r.devices);
    $("ov-devices-sub").textContent = "distinct devices since " + F.dateTime(r.from).substring(11);
  }

  async function showDays() {
    const r = await A.api("/api/v1/stats/status?from=" + day(-6) + "&to=" + day(1));
    A.charts.days($("ov-days"), r.days, { keepZoom: daysZoomKept });
    daysZoomKept = true;
    lastDays = Date.now();
  }

  async function refresh() {
    const errors = [];
    const step = (p, show) => p.then(show).catch((e) => errors.push(e.message));
    await Promise.all([
      step(A.api("/api/v1/stats/status"), showToday),
      step(A.api("/api/v1/stats/abnormal?minutes=60"), showAbnormal),
      Date.now() - lastActivity > 30000
        ? step(A.api("/api/v1/stats/activity?minutes=60"), (r) => {
            lastActivity = Date.now();
            showActivity(r);
          })
        : null,
      Date.now() - lastDays > 60000 ? showDays().catch((e) => errors.push(e.message)) : null,
    ]);
    $("ov-updated").textContent = errors.length
      ? "Some figures could not be read: " + errors.join("; ")
      : "Updated " + F.dateTime(Date.now()) + "; every " + REFRESH_MS / 1000 + " s.";
  }

  A.views = A.views || {};
  A.views.overview = {
    show() {
      lastDays = 0;
      lastActivity = 0;
      daysZoomKept = false;
      refresh();
      timer = setInterval(refresh, REFRESH_MS);
    },
    hide() {
      clearInterval(timer);
    },
  };
})();
