"use strict";
// The page's router: #/overview, #/fleet?type=&status=&abnormal=, #/device/<id>, #/live.
(function () {
  const A = (window.Amber = window.Amber || {});
  const F = A.fmt;
  let current = null;

  /** Types and statuses seen today, offered as filter suggestions. */
  A.knownValues = function (types, statuses) {
    [["known-types", types], ["known-statuses", statuses]].forEach(([id, values]) => {
      const list = document.getElementById(id);
      F.clear(list);
      values.forEach((v) => list.appendChild(new Option(v)));
    });
  };

  function route() {
    const hash = location.hash.replace(/^#\/?/, "");
    const [path, query] = hash.split("?");
    const params = new URLSearchParams(query || "");
    let view = "overview";
    let arg = null;
    if (path.startsWith("device/")) {
      view = "device";
      arg = decodeURIComponent(path.substring("device/".length));
    } else if (A.views[path]) {
      view = path;
    }
    if (current) A.views[current].hide();
    document.querySelectorAll(".view").forEach((s) => (s.hidden = s.id !== "view-" + view));
    document
      .querySelectorAll("header nav a")
      .forEach((a) => a.classList.toggle("active", a.dataset.view === view));
    current = view;
    A.views[view].show(params, arg);
  }

  document.getElementById("goto").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const id = String(new FormData(ev.target).get("device") || "").trim();
    if (id) location.hash = F.deviceHref(id);
  });
  setInterval(() => {
    document.getElementById("clock").textContent = F.dateTime(Date.now());
  }, 1000);
  // Sign out: the current view stops (its refreshes and live WebSockets end), the page is hidden
  // and the key prompt comes up; a new key brings the view back.
  const signOut = document.getElementById("sign-out");
  const auth = window.AmberAuth;
  function showSignOut() {
    signOut.hidden = !(auth && auth.hasKey());
  }
  signOut.addEventListener("click", () => {
    if (current) A.views[current].hide();
    current = null;
    document.body.classList.add("signed-out");
    auth.signOut();
  });
  window.addEventListener("amber:signed-out", showSignOut);
  window.addEventListener("amber:signed-in", () => {
    showSignOut();
    document.body.classList.remove("signed-out");
    if (!current) route();
  });
  showSignOut();
  window.addEventListener("hashchange", route);
  route();
})();
