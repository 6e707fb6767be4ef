"use strict";
// Device page: latest state, a metric chart over a chosen range (from the series API, one request
// whatever the range, kept up to date by the device's own live feed), a CSV download of the range
// (the export API), hourly rollups, counters, and the live events.
(function () {
  const A = (window.Amber = window.Amber || {});
  const F = A.fmt;
  const $ = (id) => document.getElementById(id);
  // A step per range, so a chart has at most a few hundred points: finer steps read detail rows,
  // an hour or more reads the hourly rollups.
  const STEPS = [
    [900000, "10s", 10000],
    [3600000, "1m", 60000],
    [21600000, "2m", 120000],
    [86400000, "10m", 600000],
    [Infinity, "1h", 3600000],
  ];
  const MAX_FEED_ROWS = 50;
  let device = null;
  let latest = null;
  let series = { from: 0, step: "", stepMs: 1, metric: "", points: [] }; // the chart's buckets
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

  function stepFor(range) {
    return STEPS.find((s) => range <= s[0]);
  }

  /** keepZoom: a zoom the user made stays (a live event arrived), else the whole range shows. */
  function drawChart(keepZoom) {
    const m = metric();
    const points = series.points;
    A.charts.band($("dev-chart"), points, {
      from: series.from,
      to: Date.now(),
      keepZoom: keepZoom,
      empty: "no " + (m || "metric") + " in this range",
    });
    const events = points.reduce((n, p) => n + p.count, 0);
    $("dev-chart-note").textContent =
      events + " events of " + m + " for " + device + " since " + F.dateTime(series.from) + ": average and min–max band per " +
      series.step + " (" + points.length + " points)";
  }

  async function loadHistory() {
    const range = Number($("dev-range").value);
    const [, step, stepMs] = stepFor(range);
    const m = metric();
    const from = Date.now() - range;
    series = { from: from, step: step, stepMs: stepMs, metric: m, points: [] };
    if (m) {
      const r = await A.api(
        "/api/v1/devices/" + encodeURIComponent(device) + "/series?" +
          new URLSearchParams({ metric: m, from: from, to: Date.now() + 1, step: step })
      );
      if (series.from !== from || series.metric !== m) return; // a newer load started meanwhile
      series.points = r.points;
    }
    drawChart();
  }

  /** Adds a live event to its bucket, as the series API would count it. */
  function addToSeries(e) {
    const v = e.metrics && e.metrics[series.metric];
    if (typeof v !== "number" || e.ts < series.from) return;
    const t = Math.floor(e.ts / series.stepMs) * series.stepMs;
    let p = series.points.find((q) => q.t === t);
    if (!p) {
      p = { t: t, count: 0, min: v, max: v, avg: 0 };
      series.points.push(p);
      series.points.sort((a, b) => a.t - b.t);
    }
    p.avg = (p.avg * p.count + v) / (p.count + 1);
    p.count++;
    p.min = Math.min(p.min, v);
    p.max = Math.max(p.max, v);
    drawChart(true);
  }

  /** The chosen range of every metric the device reports, as CSV from the export API. */
  async function downloadCsv() {
    const range = Number($("dev-range").value);
    const to = Date.now() + 1;
    const metrics = Array.from($("dev-metric").options).map((o) => o.value);
    const url =
      "/api/v1/devices/" + encodeURIComponent(device) + "/events/export?" +
      new URLSearchParams({ format: "csv", from: to - 1 - range, to: to, metrics: metrics.join(",") });
    const note = $("dev-csv-note");
    note.textContent = "exporting…";
    const auth = window.AmberAuth;
    const res = auth && auth.fetch ? await auth.fetch(url) : await fetch(url);
    if (!res.ok) {
      const body = await res.json().catch(() => null);
      throw new Error((body && (body.detail || body.title)) || "HTTP " + res.status);
    }
    // the key rides in a header, so the file comes through fetch rather than a plain link
    const text = await res.text();
    const rows = text.split("\n").filter((l) => l.length > 0).length - 1;
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
    link.download = device + ".csv";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
    note.textContent = rows + " events exported to " + link.download + " (" + F.number(text.length) + " bytes)";
  }

  /** keepZoom: the periodic refresh keeps a zoom the user made; a new device or metric does not. */
  async function loadRollups(keepZoom) {
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
    A.charts.band(
      $("dev-rollup-chart"),
      hours.map((h) => Object.assign({ t: h.hour }, h.metrics[m])),
      { from: from, to: Date.now(), height: 150, keepZoom: keepZoom, empty: "no closed hour yet" }
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
    addToSeries(e);
  }

  function report(p) {
    p.catch((e) => {
      $("dev-chart-note").textContent = e.message;
    });
  }

  $("dev-range").addEventListener("change", () => report(loadHistory()));
  $("dev-metric").addEventListener("change", () => report(Promise.all([loadHistory(), loadRollups()])));
  $("dev-csv").addEventListener("click", () =>
    downloadCsv().catch((e) => {
      $("dev-csv-note").textContent = e.message;
    })
  );

  A.views = A.views || {};
  A.views.device = {
    show(params, id) {
      device = id;
      latest = null;
      series = { from: 0, step: "", stepMs: 1, metric: "", points: [] };
      F.clear($("dev-feed"));
      F.clear($("dev-rollups"));
      F.clear($("dev-metric"));
      $("dev-chart-note").textContent = "";
      $("dev-csv-note").textContent = "";
      const status = $("dev-live-status");
      feed = A.openFeed({ devices: id }, onLive, (text, cls) => {
        status.textContent = text;
        status.className = "pill " + cls;
      });
      // latest first: it names the metrics the chart and rollups show
      report(loadLatest().then(() => Promise.all([loadHistory(), loadRollups(), loadCounters()])));
      // rollups too: an hour shows up once it is rolled up, a few minutes after it ends
      timer = setInterval(() => report(Promise.all([loadCounters(), loadRollups(true)])), 10000);
      if (typeof A.onDevicePage === "function") A.onDevicePage(id, $("device-images"));
    },
    hide() {
      clearInterval(timer);
      if (feed) feed.close();
      feed = null;
    },
  };
})();
