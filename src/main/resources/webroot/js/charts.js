"use strict";
// Charts drawn by uPlot (the WebJar, served at /vendor/uplot/). Hovering a chart shows the values
// under the cursor in a tooltip (and in the legend under the time charts); dragging across a time
// chart zooms into that stretch, a double-click shows the whole range again. Each chart lives in a
// <div> and is redrawn in place when new data comes.
(function () {
  const A = (window.Amber = window.Amber || {});
  const C = (A.charts = {});
  const AMBER = "#d98e04";
  const AMBER_LINE = "rgba(217,142,4,0.45)";
  const AMBER_BAND = "rgba(217,142,4,0.18)";
  const GRID = { stroke: "#f1f1f3", width: 1 };
  const TICKS = { stroke: "#e4e4e7", width: 1 };
  const charts = {}; // container id → {u, kind, height, full: [min, max], zoomed, programmatic}

  const utc = (ts) => uPlot.tzDate(new Date(ts), "Etc/UTC");
  const fmt = () => A.fmt;

  /** The uPlot instance drawn in the container with this id, if any. */
  C.get = (id) => charts[id] && charts[id].u;

  /** Shows the values of the data point under the cursor; format(u, idx) gives its lines. */
  function tooltip(format) {
    let tip = null;
    return {
      hooks: {
        init: (u) => {
          tip = document.createElement("div");
          tip.className = "chart-tip";
          tip.hidden = true;
          u.over.appendChild(tip);
        },
        setCursor: (u) => {
          const i = u.cursor.idx;
          const text = i == null || u.cursor.left < 0 ? null : format(u, i);
          if (!text) {
            tip.hidden = true;
            return;
          }
          tip.textContent = text;
          tip.hidden = false;
          // beside the cursor, on the side with room
          const left = u.cursor.left + 12;
          const x = left + tip.offsetWidth > u.over.clientWidth ? u.cursor.left - 12 - tip.offsetWidth : left;
          tip.style.left = Math.max(0, x) + "px";
          tip.style.top = Math.max(0, Math.min(u.cursor.top, u.over.clientHeight - tip.offsetHeight)) + "px";
        },
      },
    };
  }

  function widthOf(el) {
    return Math.max(100, el.clientWidth || 600);
  }

  function setScaleX(entry, min, max) {
    entry.programmatic = true;
    entry.u.setScale("x", { min: min, max: max });
    entry.programmatic = false;
  }

  /**
   * Draws data into the container, creating the chart on first use (or when its kind changed).
   * full is the x range shown unzoomed; a zoom the user made is kept when keepZoom is set.
   */
  function draw(el, kind, height, opts, data, full, keepZoom, empty) {
    let entry = charts[el.id];
    if (!entry || entry.kind !== kind || !el.contains(entry.u.root)) {
      if (entry) {
        entry.u.destroy();
        if (entry.resize) entry.resize.disconnect();
      }
      entry = { kind: kind, height: height, full: full, zoomed: false, programmatic: true };
      opts.width = widthOf(el);
      opts.height = height;
      opts.ms = 1; // timestamps in milliseconds
      opts.tzDate = utc;
      opts.cursor = Object.assign(
        {
          // a double-click shows the whole range, not just the data's span
          bind: {
            dblclick: (u, targ) => (e) => {
              if (e.button === 0) {
                entry.zoomed = false;
                setScaleX(entry, entry.full[0], entry.full[1]);
              }
            },
          },
        },
        opts.cursor || {}
      );
      opts.hooks = {
        setScale: [
          (u, key) => {
            if (key === "x" && !entry.programmatic) entry.zoomed = true;
          },
        ],
      };
      el.replaceChildren();
      entry.u = new uPlot(opts, data, el);
      entry.empty = A.fmt.el("div", "", "chart-empty");
      entry.u.over.appendChild(entry.empty);
      charts[el.id] = entry;
      if (window.ResizeObserver) {
        const current = entry;
        current.resize = new ResizeObserver(() => {
          const w = el.clientWidth;
          if (w > 0 && Math.abs(w - current.u.width) > 1) current.u.setSize({ width: w, height: current.height });
        });
        current.resize.observe(el);
      }
    } else {
      entry.programmatic = true;
      entry.u.setData(data, false);
      entry.programmatic = false;
    }
    entry.full = full;
    if (!(keepZoom && entry.zoomed)) {
      entry.zoomed = false;
      setScaleX(entry, full[0], full[1]);
    } else {
      setScaleX(entry, entry.u.scales.x.min, entry.u.scales.x.max);
    }
    const hasData = data.slice(1).some((s) => s.some((v) => v != null));
    entry.empty.textContent = hasData ? "" : empty || "no data";
    entry.empty.hidden = hasData;
    return entry.u;
  }

  /** UTC tick labels, 24-hour: the day at midnight and for daily ticks, else the time. */
  function timeLabels(u, splits, ai, space, incr) {
    return splits.map((t) => {
      const iso = new Date(t).toISOString();
      if (incr >= 86400000 || (incr >= 60000 && t % 86400000 === 0)) return iso.substring(5, 10);
      return incr >= 60000 ? iso.substring(11, 16) : iso.substring(11, 19);
    });
  }

  function timeAxis() {
    return { stroke: "#6b6b70", grid: GRID, ticks: TICKS, font: "11px system-ui, sans-serif", values: timeLabels };
  }

  function valueAxis() {
    return { stroke: "#6b6b70", grid: GRID, ticks: TICKS, font: "11px system-ui, sans-serif", size: 50, space: 20 };
  }

  const decimal = (u, v) => (v == null ? "–" : fmt().decimal(v));

  /**
   * A metric over time: the average as a line in a min–max band. points = [{t, avg, min, max,
   * count}]; opts = {from, to, empty, height, keepZoom}.
   */
  C.band = function (el, points, opts) {
    const data = [
      points.map((p) => p.t),
      points.map((p) => p.max),
      points.map((p) => p.avg),
      points.map((p) => p.min),
    ];
    const counts = points.map((p) => p.count);
    const dots = { show: (u) => u.data[0].length < 60, size: 5, fill: AMBER };
    const chartOpts = {
      legend: { live: true },
      scales: { x: { time: true } },
      series: [
        { label: "time (UTC)", value: (u, v) => (v == null ? "–" : fmt().dateTime(v)) },
        { label: "max", stroke: AMBER_LINE, width: 1, value: decimal, points: { show: false } },
        { label: "avg", stroke: AMBER, width: 2, value: decimal, points: dots },
        { label: "min", stroke: AMBER_LINE, width: 1, value: decimal, points: { show: false } },
      ],
      bands: [{ series: [1, 3], fill: AMBER_BAND }],
      axes: [timeAxis(), valueAxis()],
      plugins: [
        tooltip((u, i) => {
          if (u.data[2][i] == null) return null;
          const F = fmt();
          const n = counts[i] != null ? "\n" + F.number(counts[i]) + " events" : "";
          return (
            F.dateTime(u.data[0][i]) + "\navg " + F.decimal(u.data[2][i]) +
            "\nmin " + F.decimal(u.data[3][i]) + " · max " + F.decimal(u.data[1][i]) + n
          );
        }),
      ],
    };
    const from = opts.from != null ? opts.from : data[0].length ? data[0][0] : Date.now() - 3600000;
    const to = opts.to != null ? opts.to : data[0].length ? data[0][data[0].length - 1] : Date.now();
    return draw(el, "band", opts.height || 260, chartOpts, data, [from, Math.max(to, from + 1)], opts.keepZoom, opts.empty);
  };

  /**
   * One bar per UTC day: days = [{day: "YYYY-MM-DD", total}]. A day without events has no bar
   * (a null, not a zero-height bar), and its tooltip says so.
   */
  C.days = function (el, days, opts) {
    const xs = days.map((d) => Date.parse(d.day + "T00:00:00Z"));
    const data = [xs, days.map((d) => (d.total > 0 ? d.total : null))];
    const half = 43200000;
    const chartOpts = {
      legend: { show: false },
      scales: {
        x: { time: true },
        y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      series: [
        {},
        {
          label: "events",
          fill: AMBER,
          stroke: AMBER,
          width: 0,
          points: { show: false },
          paths: uPlot.paths.bars({ size: [0.6, 80] }),
        },
      ],
      axes: [
        Object.assign(timeAxis(), {
          grid: { show: false },
          splits: (u, ai, min, max) => u.data[0].filter((t) => t >= min && t <= max),
          values: (u, splits) => splits.map((t) => new Date(t).toISOString().substring(5, 10)),
        }),
        valueAxis(),
      ],
      plugins: [
        tooltip((u, i) => {
          const day = new Date(u.data[0][i]).toISOString().substring(0, 10);
          const n = u.data[1][i];
          return day + ": " + (n == null ? "no events" : fmt().number(n) + " events");
        }),
      ],
    };
    const full = xs.length ? [xs[0] - half, xs[xs.length - 1] + half] : [Date.now() - 7 * 86400000, Date.now()];
    return draw(el, "days", (opts && opts.height) || 160, chartOpts, data, full, opts && opts.keepZoom, "no events");
  };

  /** A sparkline of samples = [{at, value}], its tooltip naming the unit. */
  C.spark = function (el, samples, unit) {
    const data = [samples.map((s) => s.at), samples.map((s) => s.value)];
    const chartOpts = {
      legend: { show: false },
      padding: [4, 2, 2, 2],
      cursor: { drag: { x: false, y: false }, points: { size: 5, fill: AMBER } },
      scales: { x: { time: true }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      series: [{}, { stroke: AMBER, width: 1.5, points: { show: false } }],
      axes: [{ show: false }, { show: false }],
      plugins: [
        tooltip((u, i) => fmt().dateTime(u.data[0][i]).substring(11) + ": " + fmt().decimal(u.data[1][i], 1) + " " + unit),
      ],
    };
    const full = data[0].length > 1 ? [data[0][0], data[0][data[0].length - 1]] : [Date.now() - 60000, Date.now()];
    return draw(el, "spark", 40, chartOpts, data, full, false, " ");
  };

  /** Horizontal bars as list items: items = [{label, value, href, bad, detail}]. */
  C.bars = function (ul, items) {
    const F = A.fmt;
    F.clear(ul);
    const max = Math.max(1, ...items.map((i) => i.value));
    items.forEach((i) => {
      const li = document.createElement("li");
      if (i.bad) li.className = "bad";
      if (i.key != null) li.dataset.key = i.key;
      const name = i.href ? F.el("a", i.label) : F.el("span", i.label);
      if (i.href) name.href = i.href;
      const bar = F.el("div", null, "bar");
      bar.style.width = Math.max(1, (100 * i.value) / max) + "%";
      const track = document.createElement("div");
      track.appendChild(bar);
      li.append(name, track, F.el("span", F.number(i.value), "n"));
      if (i.detail) li.appendChild(F.el("div", i.detail, "ids"));
      ul.appendChild(li);
    });
  };
})();
