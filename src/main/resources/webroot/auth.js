// Credentials for the dashboard: asks for an API key once (only when the API answers 401), keeps it in
// sessionStorage (gone when the tab closes), sends it as a bearer token, and opens the live feed with a
// single-use ticket, since a browser cannot send headers on a WebSocket.
//   AmberAuth.fetch(url, opts)  fetch() with the key; asks for a key on 401 and retries once
//   AmberAuth.liveUrl(path)     a ws:// or wss:// URL of path with a fresh ticket (plain when auth is off)
//   AmberAuth.signOut()         forgets the key and asks for another
// It fires "amber:signed-in" on window when a key was entered, "amber:signed-out" when it was dropped.
"use strict";
(function () {
  const STORE = "amber.apiKey";
  let asking = null;

  function key() {
    return sessionStorage.getItem(STORE);
  }

  // a small modal form; resolves once a key was entered
  function ask(message) {
    if (asking) return asking;
    asking = new Promise(resolve => {
      const box = document.createElement("div");
      box.id = "amber-auth"; // styled in app.css
      const form = document.createElement("form");
      const p = document.createElement("p");
      p.textContent = message || "This service needs an API key. Paste one (`mvn -Prun` prints a local " +
        "admin key and writes it to .runtime/admin.key). It is kept only in this tab.";
      const input = document.createElement("input");
      input.id = "amber-key";
      input.type = "password";
      input.autocomplete = "off";
      input.placeholder = "amb_...";
      const button = document.createElement("button");
      button.id = "amber-key-submit";
      button.type = "submit";
      button.textContent = "Use key";
      form.append(p, input, button);
      box.appendChild(form);
      form.addEventListener("submit", ev => {
        ev.preventDefault();
        const k = input.value.trim();
        if (!k) return;
        sessionStorage.setItem(STORE, k);
        box.remove();
        asking = null;
        resolve(k);
        window.dispatchEvent(new Event("amber:signed-in"));
      });
      document.body.appendChild(box);
      input.focus();
    });
    return asking;
  }

  function withKey(opts) {
    const o = Object.assign({}, opts || {});
    const headers = new Headers(o.headers || {});
    const k = key();
    if (k) headers.set("Authorization", "Bearer " + k);
    o.headers = headers;
    return o;
  }

  async function apiFetch(url, opts) {
    if (asking) await asking;
    let res = await fetch(url, withKey(opts));
    if (res.status === 401) {
      const had = key();
      sessionStorage.removeItem(STORE);
      await ask(had ? "That key was not accepted (unknown, revoked or mistyped). Paste another API key." : null);
      res = await fetch(url, withKey(opts));
    }
    return res;
  }

  async function liveUrl(path) {
    const url = new URL(path, location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    const res = await apiFetch("/api/v1/live/tickets", { method: "POST" });
    if (res.status === 400) return url.toString(); // auth is off: no tickets, no credentials needed
    if (!res.ok) {
      const body = await res.json().catch(() => ({}));
      throw new Error(body.detail || ("ticket refused: " + res.status));
    }
    url.searchParams.set("ticket", (await res.json()).ticket);
    return url.toString();
  }

  window.AmberAuth = {
    fetch: apiFetch,
    liveUrl: liveUrl,
    signOut: () => {
      sessionStorage.removeItem(STORE);
      window.dispatchEvent(new Event("amber:signed-out"));
      return ask("Signed out. Paste an API key to sign in again.");
    },
    hasKey: () => key() != null
  };
})();
