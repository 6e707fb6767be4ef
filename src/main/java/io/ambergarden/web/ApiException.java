package io.ambergarden.web;

import io.vertx.core.json.JsonArray;

/**
 * The one error family of the HTTP API. The status decides the answer; 4xx say what the client got
 * wrong, 5xx that the service could not do it now. Rendered as application/problem+json.
 */
public final class ApiException extends RuntimeException {
  private final int status;
  private final String title;
  private final JsonArray errors;
  private final Integer retryAfterSeconds;

  public ApiException(
      int status, String title, String detail, JsonArray errors, Integer retryAfterSeconds) {
    super(detail, null, false, false);
    this.status = status;
    this.title = title;
    this.errors = errors;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public static ApiException badRequest(String detail) {
    return new ApiException(400, "Bad Request", detail, null, null);
  }

  public static ApiException invalidParameter(String name, String message) {
    return new ApiException(
        400,
        "Bad Request",
        name + ": " + message,
        new JsonArray()
            .add(new io.vertx.core.json.JsonObject().put("field", name).put("message", message)),
        null);
  }

  public static ApiException notFound(String detail) {
    return new ApiException(404, "Not Found", detail, null, null);
  }

  public static ApiException unavailable(String detail, int retryAfterSeconds) {
    return new ApiException(503, "Service Unavailable", detail, null, retryAfterSeconds);
  }

  public static ApiException internal() {
    return new ApiException(500, "Internal Server Error", "internal error", null, null);
  }

  public static ApiException tooManyRequests(String detail, int retryAfterSeconds) {
    return new ApiException(429, "Too Many Requests", detail, null, retryAfterSeconds);
  }

  public int status() {
    return status;
  }

  public String title() {
    return title;
  }

  public JsonArray errors() {
    return errors;
  }

  public Integer retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
