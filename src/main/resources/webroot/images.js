// Device images on the dashboard's device page: the device's most recent images, rendered into the
// element with id "device-images". Which device: the element's data-device attribute (watched), an
// "amber:device" event ({detail: {deviceId}}), or AmberImages.show(deviceId). No build step.
// Requests go through window.AmberAuth.fetch when the page has it (credentials), else plain fetch;
// the bytes are fetched the same way and shown from object URLs, since an <img src> cannot carry
// credentials. Its styles are in app.css.
(function () {
  "use strict";
  const LIMIT = 8;
  const CONTAINER = "device-images";
  let shown = null;   // the device on screen
  let urls = [];      // object URLs to release when the view changes
  let generation = 0; // a newer show() makes older, slower answers drop out

  function request(url) {
    const auth = window.AmberAuth;
    return auth && typeof auth.fetch === "function" ? auth.fetch(url) : fetch(url);
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function release() {
    urls.forEach(u => URL.revokeObjectURL(u));
    urls = [];
  }

  function message(box, text) {
    box.replaceChildren(el("p", "muted", text));
  }

  async function show(deviceId) {
    const box = document.getElementById(CONTAINER);
    if (!box || !deviceId) return;
    const mine = ++generation;
    shown = deviceId;
    release();
    message(box, "Loading images of " + deviceId + "…");
    let page;
    try {
      const res = await request("/api/v1/devices/" + encodeURIComponent(deviceId) + "/images?limit=" + LIMIT);
      page = await res.json();
      if (!res.ok) throw new Error(page.detail || "error " + res.status);
    } catch (e) {
      if (mine === generation) message(box, "Images unavailable: " + e.message);
      return;
    }
    if (mine !== generation) return;
    if (page.items.length === 0) {
      message(box, "No images of " + deviceId + ".");
      return;
    }
    const grid = el("div", "amber-images");
    grid.dataset.device = deviceId;
    box.replaceChildren(grid);
    for (const image of page.items) {
      const fig = el("figure");
      fig.dataset.imageId = image.imageId;
      const img = el("img");
      img.alt = (image.tags || []).join(", ") || image.contentType;
      const when = new Date(image.createdAt).toISOString().replace("T", " ").substring(0, 19);
      const caption = el("figcaption", null, when + (image.tags.length ? " · " + image.tags.join(", ") : ""));
      caption.title = image.imageId + " · " + image.bytes + " bytes";
      fig.append(img, caption);
      grid.appendChild(fig);
    }
    // one at a time: a device page must not start eight 10 MiB downloads at once
    for (const fig of grid.children) {
      if (mine !== generation) return;
      const img = fig.querySelector("img");
      try {
        const res = await request("/api/v1/images/" + fig.dataset.imageId + "/content");
        if (!res.ok) throw new Error("error " + res.status);
        const url = URL.createObjectURL(await res.blob());
        if (mine !== generation) { URL.revokeObjectURL(url); return; }
        urls.push(url);
        img.src = url;
        img.addEventListener("click", () => window.open(url, "_blank", "noopener"));
        fig.classList.add("loaded");
      } catch (e) {
        img.replaceWith(el("span", "muted", "not available"));
      }
    }
  }

  function watch() {
    const box = document.getElementById(CONTAINER);
    if (!box) return false;
    const follow = () => {
      const d = box.dataset.device;
      if (d && d !== shown) show(d);
    };
    new MutationObserver(follow).observe(box, {attributes: true, attributeFilter: ["data-device"]});
    follow();
    return true;
  }

  document.addEventListener("amber:device", ev => ev.detail && show(ev.detail.deviceId));
  window.AmberImages = {show: show, refresh: () => shown && show(shown)};
  // the console's device page (js/device.js) calls this each time it shows a device
  window.Amber = window.Amber || {};
  window.Amber.onDevicePage = (deviceId) => show(deviceId);
  if (!watch()) {
    // the page may build its device view after this script ran
    const late = new MutationObserver(() => { if (watch()) late.disconnect(); });
    late.observe(document.documentElement, {childList: true, subtree: true});
  }
})();
