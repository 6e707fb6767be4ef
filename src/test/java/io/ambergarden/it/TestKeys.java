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

  private TestKeys() {}

  /** Both guarded by the class lock. */
  private static ApiKeys.Minted adminKey;

  private static final java.util.Set<String> ADMIN_KEYSPACES = new java.util.HashSet<>();

  /** A key with every scope, created on first use (the schema must exist: a service started). */
  public static String admin() {
    return adminIn(TestService.KEYSPACE);
  }

  /**
   * The same admin key, stored in {@code keyspace} too (tests whose service runs in a keyspace of
   * its own); the schema there must exist.
   */
  public static String adminIn(String keyspace) {
    synchronized (TestKeys.class) {
      adminText();
      if (!ADMIN_KEYSPACES.contains(keyspace)) {
        store(keyspace, adminKey, "it-admin", Set.of(Scope.values()), List.of(), 0);
        ADMIN_KEYSPACES.add(keyspace);
      }
      return adminKey.text();
    }
  }

  /** The admin key's text, stored nowhere new (the same key in every keyspace it is stored in). */
  public static String adminText() {
    synchronized (TestKeys.class) {
      if (adminKey == null) {
        adminKey = ApiKeys.mint();
      }
      return adminKey.text();
    }
  }

  /** Stores a new key in {@link TestService#KEYSPACE} and returns its text. */
  public static String create(String name, Set<Scope> scopes, List<String> devices, int rate) {
    ApiKeys.Minted m = ApiKeys.mint();
    store(TestService.KEYSPACE, m, name, scopes, devices, rate);
    return m.text();
  }

  private static void store(
      String keyspace,
      ApiKeys.Minted m,
      String name,
      Set<Scope> scopes,
      List<String> devices,
      int rate) {
    try (CqlSession cql = TestService.cql()) {
      cql.execute(
          SimpleStatement.newInstance(
              "INSERT INTO "
                  + keyspace
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
  }

  /** Every scope but the given ones. */
  public static Set<Scope> allBut(Scope... missing) {
    Set<Scope> out = new java.util.HashSet<>(Arrays.asList(Scope.values()));
    out.removeAll(Arrays.asList(missing));
    return out;
  }
}
