"use strict";
// The API reference page (/docs): Swagger UI rendering this service's /openapi.json. "Try it out"
// sends the console's API key (kept in this tab by auth.js) when there is one.
(function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    // no badge from validator.swagger.io: the page loads nothing from elsewhere
    validatorUrl: null,
    requestInterceptor: (req) => {
      const key = sessionStorage.getItem("amber.apiKey");
      if (key && !req.headers.Authorization) req.headers.Authorization = "Bearer " + key;
      return req;
    },
  });
})();
