"use strict";
// Tiny canvas charts: no library, no build step. Canvases are drawn at device pixel ratio.
(function () {
  const A = (window.Amber = window.Amber || {});
  const C = (A.charts = {});

  function setup(canvas) {
    const ratio = window.devicePixelRatio || 1;
    const w = canvas.clientWidth || canvas.width;
    const h = canvas.clientHeight || canvas.height;
    canvas.width = Math.round(w * ratio);
    canvas.height = Math.round(h * ratio);
    const g = canvas.getContext("2d");
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, w, h);
    g.font = "11px system-ui, sans-serif";
    return { g, w, h };
  }

  function label(t, spanMs) {
    const iso = new Date(t).toISOString();
    return spanMs > 2 * 86400000 ? iso.substring(5, 10) + " " + iso.substring(11, 16) : iso.substring(11, 19);
  }

  /**
   * A time series: series = [{points: [[t, v], ...], colour, width, band: [[t, lo, hi]]}].
   * Returns the drawn y range.
   */
  C.line = function (canvas, series, opts) {
    const { g, w, h } = setup(canvas);
    const pad = { l: 48, r: 10, t: 10, b: 22 };
    const all = [];
    series.forEach((s) => {
      s.points.forEach((p) => all.push(p));
      (s.band || []).forEach((b) => all.push([b[0], b[1]], [b[0], b[2]]));
    });
    g.strokeStyle = "#e4e4e7";
    g.strokeRect(pad.l, pad.t, w - pad.l - pad.r, h - pad.t - pad.b);
    if (all.length === 0) {
      g.fillStyle = "#6b6b70";
      g.fillText((opts && opts.empty) || "no data", pad.l + 10, pad.t + 20);
      return null;
    }
    let x0 = (opts && opts.from) || Math.min(...all.map((p) => p[0]));
    let x1 = (opts && opts.to) || Math.max(...all.map((p) => p[0]));
    if (x1 <= x0) x1 = x0 + 1;
    let y0 = Math.min(...all.map((p) => p[1]));
    let y1 = Math.max(...all.map((p) => p[1]));
    if (y0 === y1) {
      y0 -= 1;
      y1 += 1;
    }
    const X = (t) => pad.l + ((t - x0) / (x1 - x0)) * (w - pad.l - pad.r);
    const Y = (v) => pad.t + (1 - (v - y0) / (y1 - y0)) * (h - pad.t - pad.b);
    g.fillStyle = "#6b6b70";
    for (let i = 0; i <= 4; i++) {
      const v = y0 + ((y1 - y0) * i) / 4;
      const y = Y(v);
      g.fillText(v.toFixed(Math.abs(y1 - y0) < 10 ? 2 : 0), 4, y + 4);
      if (i > 0 && i < 4) {
        g.strokeStyle = "#f1f1f3";
        g.beginPath();
        g.moveTo(pad.l, y);
        g.lineTo(w - pad.r, y);
        g.stroke();
      }
    }
    g.fillText(label(x0, x1 - x0), pad.l, h - 6);
    const right = label(x1, x1 - x0);
    g.fillText(right, w - pad.r - g.measureText(right).width, h - 6);
    series.forEach((s) => {
      if (s.band && s.band.length) {
        g.fillStyle = s.bandColour || "rgba(217,142,4,0.18)";
        g.beginPath();
        s.band.forEach((b, i) => (i === 0 ? g.moveTo(X(b[0]), Y(b[2])) : g.lineTo(X(b[0]), Y(b[2]))));
        for (let i = s.band.length - 1; i >= 0; i--) g.lineTo(X(s.band[i][0]), Y(s.band[i][1]));
        g.closePath();
        g.fill();
      }
      g.strokeStyle = s.colour || "#d98e04";
      g.lineWidth = s.width || 2;
      g.beginPath();
      s.points.forEach((p, i) => (i === 0 ? g.moveTo(X(p[0]), Y(p[1])) : g.lineTo(X(p[0]), Y(p[1]))));
      g.stroke();
      if (s.points.length < 60) {
        g.fillStyle = s.colour || "#d98e04";
        s.points.forEach((p) => {
          g.beginPath();
          g.arc(X(p[0]), Y(p[1]), 2.5, 0, 2 * Math.PI);
          g.fill();
        });
      }
    });
    return { y0, y1 };
  };

  /** Vertical bars with labels under them: bars = [{label, value, colour}]. */
  C.columns = function (canvas, bars) {
    const { g, w, h } = setup(canvas);
    const pad = { l: 48, r: 10, t: 12, b: 22 };
    const max = Math.max(1, ...bars.map((b) => b.value));
    const slot = (w - pad.l - pad.r) / Math.max(1, bars.length);
    g.fillStyle = "#6b6b70";
    g.fillText(String(max.toLocaleString("en-US")), 4, pad.t + 8);
    g.fillText("0", 4, h - pad.b);
    bars.forEach((b, i) => {
      const bh = ((h - pad.t - pad.b) * b.value) / max;
      const x = pad.l + i * slot + slot * 0.15;
      g.fillStyle = b.colour || "#d98e04";
      g.fillRect(x, h - pad.b - bh, slot * 0.7, bh);
      g.fillStyle = "#6b6b70";
      const tw = g.measureText(b.label).width;
      g.fillText(b.label, x + (slot * 0.7 - tw) / 2, h - 6);
    });
  };

  /** A sparkline of the last values. */
  C.spark = function (canvas, values) {
    const { g, w, h } = setup(canvas);
    if (values.length < 2) return;
    const max = Math.max(1, ...values);
    g.strokeStyle = "#d98e04";
    g.lineWidth = 1.5;
    g.beginPath();
    values.forEach((v, i) => {
      const x = (i / (values.length - 1)) * (w - 2) + 1;
      const y = h - 2 - (v / max) * (h - 4);
      i === 0 ? g.moveTo(x, y) : g.lineTo(x, y);
    });
    g.stroke();
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
