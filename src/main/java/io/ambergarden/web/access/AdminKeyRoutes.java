package io.ambergarden.web.access;

import io.ambergarden.auth.ApiKeys;
import io.ambergarden.auth.DevicePatterns;
import io.ambergarden.auth.Gatekeeper;
import io.ambergarden.auth.KeyRecord;
import io.ambergarden.auth.KeyStore;
import io.ambergarden.auth.Principal;
import io.ambergarden.auth.Scope;
import io.ambergarden.web.AccessHandler;
import io.ambergarden.web.ApiException;
import io.ambergarden.web.EdgeRoutes;
import io.ambergarden.web.QueryParams;
import io.ambergarden.web.Responses;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The key administration API (scope admin) and live-feed tickets (scope live:read). A new key's
 * text is in the 201 answer only; the store keeps its hash.
 */
public final class AdminKeyRoutes implements EdgeRoutes {
  static final int MAX_NAME = 100;
  static final int MAX_BODY = 16 * 1024;

  private final Gatekeeper gate;

  public AdminKeyRoutes(Gatekeeper gate) {
    this.gate = gate;
  }

  @Override
  public void mount(Router router) {
    router
        .post("/api/v1/admin/keys")
        .handler(BodyHandler.create(false).setBodyLimit(MAX_BODY))
        .handler(this::create);
    router.get("/api/v1/admin/keys").handler(this::list);
    router.delete("/api/v1/admin/keys/:keyId").handler(this::revoke);
    router.post("/api/v1/live/tickets").handler(this::ticket);
  }

  /** What a create request asks for, validated: every problem names its field. */
  record NewKey(String name, Set<Scope> scopes, List<String> devices, int ratePerSecond) {
    static NewKey parse(String body) {
      JsonObject json;
      try {
        json = new JsonObject(body == null ? "" : body);
      } catch (DecodeException | ClassCastException e) {
        throw ApiException.badRequest("the body must be a JSON object");
      }
      Object name = json.getValue("name");
      if (!(name instanceof String n) || n.isBlank() || n.length() > MAX_NAME) {
        throw ApiException.invalidParameter("name", "must be a string of 1-" + MAX_NAME + " chars");
      }
      if (!(json.getValue("scopes") instanceof JsonArray scopeList) || scopeList.isEmpty()) {
        throw ApiException.invalidParameter(
            "scopes", "must be a non-empty array of " + scopeNames());
      }
      Set<Scope> scopes = EnumSet.noneOf(Scope.class);
      for (Object s : scopeList) {
        if (!(s instanceof String text) || Scope.parse(text).isEmpty()) {
          throw ApiException.invalidParameter(
              "scopes", "unknown scope " + s + "; use " + scopeNames());
        }
        scopes.add(Scope.parse(text).get());
      }
      List<String> devices = new ArrayList<>();
      Object deviceList = json.getValue("devices");
      if (deviceList != null) {
        if (!(deviceList instanceof JsonArray arr)) {
          throw ApiException.invalidParameter("devices", "must be an array of device patterns");
        }
        for (Object d : arr) {
          devices.add(d instanceof String ds ? ds : null);
        }
        try {
          DevicePatterns.of(devices);
        } catch (IllegalArgumentException e) {
          throw ApiException.invalidParameter("devices", e.getMessage());
        }
      }
      int rate = 0;
      Object r = json.getValue("ratePerSecond");
      if (r != null) {
        if (!(r instanceof Integer || r instanceof Long)
            || ((Number) r).longValue() < 1
            || ((Number) r).longValue() > 1_000_000) {
          throw ApiException.invalidParameter("ratePerSecond", "must be an integer in 1..1000000");
        }
        rate = ((Number) r).intValue();
      }
      for (String field : json.fieldNames()) {
        if (!Set.of("name", "scopes", "devices", "ratePerSecond").contains(field)) {
          throw ApiException.invalidParameter(field, "is not a field of a key");
        }
      }
      return new NewKey(n.trim(), scopes, devices, rate);
    }

    private static String scopeNames() {
      return java.util.Arrays.stream(Scope.values()).map(Scope::text).toList().toString();
    }
  }

  private void create(RoutingContext ctx) {
    NewKey req = NewKey.parse(ctx.body().asString());
    Principal caller = AccessHandler.principal(ctx);
    ApiKeys.Minted minted = ApiKeys.mint();
    KeyRecord record =
        new KeyRecord(
            minted.id(),
            req.name(),
            minted.hash(),
            req.scopes(),
            req.devices(),
            req.ratePerSecond(),
            Instant.now(),
            caller == null ? "anonymous" : caller.kind() + ":" + caller.id(),
            null);
    gate.store()
        .create(record)
        .onSuccess(
            v -> {
              JsonObject body = json(record).put("key", minted.text());
              ctx.response()
                  .setStatusCode(201)
                  .putHeader("Content-Type", "application/json")
                  .putHeader("Cache-Control", "no-store")
                  .putHeader("Location", "/api/v1/admin/keys/" + record.id())
                  .end(body.encode());
            })
        .onFailure(err -> ctx.fail(storeFailure(err)));
  }

  private void list(RoutingContext ctx) {
    int limit = QueryParams.intIn("limit", ctx.request().getParam("limit"), 100, 1, 1000);
    String cursor = ctx.request().getParam("cursor");
    Long after = null;
    if (cursor != null) {
      try {
        after = Long.parseLong(cursor);
      } catch (NumberFormatException e) {
        throw ApiException.invalidParameter("cursor", "must be the next value of a listing");
      }
    }
    gate.store()
        .list(after, limit)
        .onSuccess(
            (KeyStore.Page page) -> {
              JsonArray items = new JsonArray();
              page.keys().forEach(k -> items.add(json(k)));
              Responses.json(
                  ctx,
                  200,
                  new JsonObject()
                      .put("items", items)
                      .put("next", page.next() == null ? null : page.next().toString()));
            })
        .onFailure(err -> ctx.fail(storeFailure(err)));
  }

  private void revoke(RoutingContext ctx) {
    String id = ctx.pathParam("keyId");
    if (!ApiKeys.validId(id)) {
      throw ApiException.invalidParameter("keyId", "must be a key id (16 hex digits)");
    }
    gate.store()
        .revoke(id, Instant.now())
        .onSuccess(
            found -> {
              if (!found) {
                ctx.fail(ApiException.notFound("no key " + id));
                return;
              }
              gate.forget(id);
              ctx.response().setStatusCode(204).end();
            })
        .onFailure(err -> ctx.fail(storeFailure(err)));
  }

  private void ticket(RoutingContext ctx) {
    Principal p = AccessHandler.principal(ctx);
    if (p == null) {
      throw ApiException.badRequest("tickets are issued only when auth.enabled is true");
    }
    gate.issueTicket(p)
        .onSuccess(
            t ->
                ctx.response()
                    .setStatusCode(201)
                    .putHeader("Content-Type", "application/json")
                    .putHeader("Cache-Control", "no-store")
                    .end(
                        new JsonObject()
                            .put("ticket", t.value())
                            .put("expiresAt", t.expiresAtMillis())
                            .encode()))
        .onFailure(err -> ctx.fail(storeFailure(err)));
  }

  private static JsonObject json(KeyRecord k) {
    JsonArray scopes = new JsonArray();
    k.scopes().stream().sorted().forEach(s -> scopes.add(s.text()));
    return new JsonObject()
        .put("id", k.id())
        .put("name", k.name())
        .put("scopes", scopes)
        .put("devices", new JsonArray(new ArrayList<>(k.devices())))
        .put("ratePerSecond", k.ratePerSecond() > 0 ? k.ratePerSecond() : null)
        .put("createdAt", k.createdAt() == null ? null : k.createdAt().toString())
        .put("createdBy", k.createdBy())
        .put("revokedAt", k.revokedAt() == null ? null : k.revokedAt().toString());
  }

  private static ApiException storeFailure(Throwable err) {
    return err instanceof ApiException api
        ? api
        : ApiException.unavailable("the key store cannot be reached: " + err.getMessage(), 1);
  }
}
