package io.ambergarden.it;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.ambergarden.auth.ApiKeys;
import io.ambergarden.auth.Scope;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * API keys for the integration tests, written straight into the test keyspace (as the key command
 * does): the harness sends {@link #admin()} with every request, so the tests keep testing what they
 * test with authentication on, as in production.
 */
public final class TestKeys {
  private static volatile String admin;

  private TestKeys() {}

  /** A key with every scope, created on first use (the schema must exist: a service started). */
  public static String admin() {
    String a = admin;
    if (a == null) {
      synchronized (TestKeys.class) {
        if (admin == null) {
          admin = create("it-admin", Set.of(Scope.values()), List.of(), 0);
        }
        a = admin;
      }
    }
    return a;
  }

  /** Stores a new key in {@link TestService#KEYSPACE} and returns its text. */
  public static String create(String name, Set<Scope> scopes, List<String> devices, int rate) {
    ApiKeys.Minted m = ApiKeys.mint();
    try (CqlSession cql = TestService.cql()) {
      cql.execute(
          SimpleStatement.newInstance(
              "INSERT INTO "
                  + TestService.KEYSPACE
                  + ".api_keys (key_id, name, secret_hash, scopes, devices, rate_per_second,"
                  + " created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
              m.id(),
              name,
              ByteBuffer.wrap(m.hash()),
              scopes.stream().map(Scope::text).collect(Collectors.toSet()),
              devices,
              rate,
              Instant.now(),
              "integration-test"));
    }
    return m.text();
  }

  /** Every scope but the given ones. */
  public static Set<Scope> allBut(Scope... missing) {
    Set<Scope> out = new java.util.HashSet<>(Arrays.asList(Scope.values()));
    out.removeAll(Arrays.asList(missing));
    return out;
  }
}
