"use strict";
// Device page: latest state, a metric chart over a chosen range (from the history API, kept up to
// date by the device's own live feed), hourly rollups, counters, and the live events.
(function () {
  const A = (window.Amber = window.Amber || {});
  const F = A.fmt;
  const $ = (id) => document.getElementById(id);
  const MAX_PAGES = 5; // up to 5000 events per chart
  const MAX_FEED_ROWS = 50;
  let device = null;
  let latest = null;
  let history = []; // events in range, oldest first
  let historyFrom = 0;
  let feed = null;
  let timer = null;

  function metric() {
    return $("dev-metric").value;
  }

  function showLatest(e) {
    latest = e;
    const abnormal = F.isAbnormal(e);
    $("dev-title").textContent = e.deviceId;
    $("dev-sub").textContent =
      (e.deviceType ? e.deviceType + " · " : "") + "last seen " + F.ago(e.ts) + " (" + F.dateTime(e.ts) + ")";
    const badge = $("dev-status");
    badge.textContent = (e.status || "no status") + (e.code != null ? " · " + e.code : "");
    badge.className = "badge" + (abnormal ? " abnormal" : "");
    const tiles = $("dev-metrics");
    F.clear(tiles);
    Object.entries(e.metrics || {}).forEach(([k, v]) => {
      const t = document.createElement("div");
      t.dataset.metric = k;
      t.append(F.el("b", F.decimal(v)), F.el("span", k));
      tiles.appendChild(t);
    });
    const select = $("dev-metric");
    const names = Object.keys(e.metrics || {});
    const current = select.value;
    if (names.join() !== Array.from(select.options).map((o) => o.value).join()) {
      F.clear(select);
      names.forEach((n) => select.appendChild(new Option(n, n)));
      if (names.includes(current)) select.value = current;
    }
  }

  async function loadLatest() {
    try {
      showLatest(await A.api("/api/v1/devices/" + encodeURIComponent(device) + "/latest"));
    } catch (e) {
      $("dev-title").textContent = device;
      $("dev-sub").textContent = e.status === 404 ? "No event of this device is stored." : e.message;
      $("dev-status").textContent = "";
      $("dev-status").className = "badge";
    }
  }

  function drawChart() {
    const m = metric();
    const points = history
      .filter((e) => e.metrics && typeof e.metrics[m] === "number" && e.ts >= historyFrom)
      .map((e) => [e.ts, e.metrics[m]]);
    A.charts.line($("dev-chart"), [{ points: points }], {
      from: historyFrom,
      to: Date.now(),
      empty: "no " + (m || "metric") + " in this range",
    });
    $("dev-chart-note").textContent =
      points.length + " points of " + m + " for " + device + " since " + F.dateTime(historyFrom);
  }

  async function loadHistory() {
    const range = Number($("dev-range").value);
    historyFrom = Date.now() - range;
    const events = [];
    let cursor = null;
    for (let i = 0; i < MAX_PAGES; i++) {
      const r = await A.api(
        "/api/v1/devices/" + encodeURIComponent(device) + "/events?limit=1000&from=" + historyFrom +
          (cursor ? "&cursor=" + encodeURIComponent(cursor) : "")
      );
      r.items.forEach((e) => events.push(e));
      cursor = r.next;
      if (!cursor) break;
    }
    history = events.reverse();
    drawChart();
    if (cursor) {
      $("dev-chart-note").textContent += " (the newest " + events.length + " events)";
    }
  }

  async function loadRollups() {
    const from = Date.now() - 24 * 3600000;
    const r = await A.api("/api/v1/devices/" + encodeURIComponent(device) + "/rollups?from=" + from);
    const m = metric();
    const rows = $("dev-rollups");
    F.clear(rows);
    const hours = r.items.filter((h) => h.metrics[m]);
    hours
      .slice()
      .reverse()
      .forEach((h) => {
        const a = h.metrics[m];
        const tr = document.createElement("tr");
        tr.dataset.hour = h.hour;
        tr.append(
          F.td(F.dateTime(h.hour).substring(0, 16)),
          F.td(F.number(a.count)),
          F.td(F.decimal(a.min)),
          F.td(F.decimal(a.avg)),
          F.td(F.decimal(a.max))
        );
        rows.appendChild(tr);
      });
    A.charts.line(
      $("dev-rollup-chart"),
      [
        {
          points: hours.map((h) => [h.hour, h.metrics[m].avg]),
          band: hours.map((h) => [h.hour, h.metrics[m].min, h.metrics[m].max]),
        },
      ],
      { empty: "no closed hour yet" }
    );
    $("dev-rollups-note").textContent = hours.length
      ? "min–max band and average of " + m + " per hour, exact (recomputed from the events)."
      : "No closed hour with " + (m || "metrics") + " yet: an hour is rolled up a few minutes after it ends.";
  }

  async function loadCounters() {
    const r = await A.api("/api/v1/devices/" + encodeURIComponent(device) + "/counters");
    $("dev-counter-total").textContent = F.number(r.total) + " events";
    A.charts.bars(
      $("dev-counters"),
      Object.entries(r.byStatus)
        .sort((a, b) => b[1] - a[1])
        .map(([s, n]) => ({ key: s, label: s, value: n, bad: F.isAbnormal({ status: s }) }))
    );
  }

  function onLive(e) {
    const rows = $("dev-feed");
    const tr = document.createElement("tr");
    tr.dataset.ts = e.ts;
    if (F.isAbnormal(e)) tr.className = "abnormal";
    tr.append(F.td(F.time(e.ts)), F.td(e.status), F.td(e.code), F.td(F.metrics(e.metrics)));
    rows.insertBefore(tr, rows.firstChild);
    while (rows.children.length > MAX_FEED_ROWS) rows.removeChild(rows.lastChild);
    if (!latest || e.ts >= latest.ts) showLatest(e);
    if (e.ts >= historyFrom) {
      history.push(e);
      history.sort((a, b) => a.ts - b.ts);
      drawChart();
    }
  }

  function report(p) {
    p.catch((e) => {
      $("dev-chart-note").textContent = e.message;
    });
  }

  $("dev-range").addEventListener("change", () => report(loadHistory()));
  $("dev-metric").addEventListener("change", () => {
    drawChart();
    report(loadRollups());
  });

  A.views = A.views || {};
  A.views.device = {
    show(params, id) {
      device = id;
      latest = null;
      history = [];
      F.clear($("dev-feed"));
      F.clear($("dev-rollups"));
      F.clear($("dev-metric"));
      $("dev-chart-note").textContent = "";
      const status = $("dev-live-status");
      feed = A.openFeed({ devices: id }, onLive, (text, cls) => {
        status.textContent = text;
        status.className = "pill " + cls;
      });
      // latest first: it names the metrics the chart and rollups show
      report(loadLatest().then(() => Promise.all([loadHistory(), loadRollups(), loadCounters()])));
      // rollups too: an hour shows up once it is rolled up, a few minutes after it ends
      timer = setInterval(() => report(Promise.all([loadCounters(), loadRollups()])), 10000);
      if (typeof A.onDevicePage === "function") A.onDevicePage(id, $("device-images"));
    },
    hide() {
      clearInterval(timer);
      if (feed) feed.close();
      feed = null;
    },
  };
})();
