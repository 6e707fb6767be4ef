"use strict";
// Every request of the page goes through api(), every WebSocket through liveSocket(): with
// window.AmberAuth (an API key and WebSocket tickets) when auth.js is loaded, plain otherwise.
(function () {
  const A = (window.Amber = window.Amber || {});

  /** GET (or opts) a JSON API path; rejects with the problem's detail on an error status. */
  A.api = async function api(url, opts) {
    const auth = window.AmberAuth;
    const res = auth && auth.fetch ? await auth.fetch(url, opts) : await fetch(url, opts);
    let body = null;
    try {
      body = await res.json();
    } catch (e) {
      body = null;
    }
    if (!res.ok) {
      const err = new Error((body && (body.detail || body.title)) || "HTTP " + res.status);
      err.status = res.status;
      throw err;
    }
    return body;
  };

  /** A WebSocket on a path of this origin, e.g. "/api/v1/live?devices=M-1". */
  A.liveSocket = async function liveSocket(path) {
    const auth = window.AmberAuth;
    if (auth && auth.liveUrl) {
      return new WebSocket(await auth.liveUrl(path));
    }
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return new WebSocket(proto + "//" + location.host + path);
  };

  /**
   * A live feed that reconnects with backoff: onEvent(event) for each event, onStatus(text, cls)
   * for the connection state. close() stops it for good.
   */
  A.openFeed = function openFeed(params, onEvent, onStatus) {
    let socket = null;
    let closed = false;
    let retryMs = 1000;
    let timer = null;
    const query = new URLSearchParams(params).toString();
    async function connect() {
      onStatus("connecting", "");
      try {
        socket = await A.liveSocket("/api/v1/live" + (query ? "?" + query : ""));
      } catch (e) {
        return retry("unavailable");
      }
      if (closed) {
        socket.close();
        return;
      }
      socket.onmessage = (msg) => {
        const m = JSON.parse(msg.data);
        if (m.type === "event") {
          onEvent(m.event);
        } else if (m.type === "live") {
          retryMs = 1000;
          onStatus("live", "live");
        } else if (m.type === "error") {
          onStatus(m.message, "down");
        }
      };
      socket.onclose = (ev) => retry("disconnected (" + ev.code + ")");
    }
    function retry(why) {
      if (closed) return;
      onStatus(why + ", retrying", "down");
      timer = setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 30000);
    }
    connect();
    return {
      close() {
        closed = true;
        clearTimeout(timer);
        if (socket) {
          socket.onclose = null;
          socket.close();
        }
      },
    };
  };
})();
