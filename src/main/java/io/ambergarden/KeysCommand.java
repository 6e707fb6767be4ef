package io.ambergarden;

import io.ambergarden.auth.ApiKeys;
import io.ambergarden.auth.DevicePatterns;
import io.ambergarden.auth.KeyRecord;
import io.ambergarden.auth.KeyStore;
import io.ambergarden.auth.Scope;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.config.AmberConfig;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Vertx;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar amber-garden-fat.jar keys create|list|revoke ...}: key administration for
 * operators without HTTP (the first admin key, or when every admin key is lost). Uses the service's
 * Cassandra settings.
 */
final class KeysCommand {
  static final String USAGE =
      """
      usage: keys create --name NAME --scopes SCOPE[,SCOPE] [--devices PATTERN[,PATTERN]] [--rate N]
             keys list
             keys revoke KEY_ID
      scopes: events:write events:read live:read media:write media:read admin""";

  private KeysCommand() {}

  static int run(AmberConfig config, String[] args, PrintStream out, PrintStream err) {
    if (args.length < 2) {
      err.println(USAGE);
      return 2;
    }
    Vertx vertx = Vertx.vertx();
    CassandraClient client = CassandraClients.shared(vertx, config.cassandra());
    KeyStore store = new KeyStore(client, config.cassandra().keyspace());
    try {
      switch (args[1]) {
        case "create" -> {
          KeyRecord k = parseCreate(Arrays.copyOfRange(args, 2, args.length));
          ApiKeys.Minted minted = ApiKeys.mint();
          KeyRecord stored =
              new KeyRecord(
                  minted.id(),
                  k.name(),
                  minted.hash(),
                  k.scopes(),
                  k.devices(),
                  k.ratePerSecond(),
                  Instant.now(),
                  "keys-command",
                  null);
          store.create(stored).await(60, TimeUnit.SECONDS);
          out.println("created key " + stored.id() + " (" + stored.name() + "); shown once:");
          out.println(minted.text());
        }
        case "list" -> {
          Long after = null;
          do {
            KeyStore.Page page = store.list(after, 500).await(60, TimeUnit.SECONDS);
            for (KeyRecord k : page.keys()) {
              out.printf(
                  "%s  %-24s %s devices=%s rate=%s%s%n",
                  k.id(),
                  k.name(),
                  k.scopes().stream().map(Scope::text).sorted().toList(),
                  k.devices(),
                  k.ratePerSecond() > 0 ? k.ratePerSecond() : "default",
                  k.revoked() ? "  REVOKED " + k.revokedAt() : "");
            }
            after = page.next();
          } while (after != null);
        }
        case "revoke" -> {
          if (args.length != 3 || !ApiKeys.validId(args[2])) {
            err.println(USAGE);
            return 2;
          }
          boolean found = store.revoke(args[2], Instant.now()).await(60, TimeUnit.SECONDS);
          out.println(found ? "revoked " + args[2] : "no key " + args[2]);
          return found ? 0 : 1;
        }
        default -> {
          err.println(USAGE);
          return 2;
        }
      }
      return 0;
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      err.println(USAGE);
      return 2;
    } catch (Exception e) {
      err.println("keys " + args[1] + " failed: " + StartupFailure.of(e).getMessage());
      return 1;
    } finally {
      client.close().eventually(vertx::close);
    }
  }

  /** The options of {@code keys create}, as a record without id or hash. */
  static KeyRecord parseCreate(String[] args) {
    String name = null;
    Set<Scope> scopes = EnumSet.noneOf(Scope.class);
    List<String> devices = new ArrayList<>();
    int rate = 0;
    for (int i = 0; i < args.length; i++) {
      String opt = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(opt + " needs a value");
      }
      String v = args[++i];
      switch (opt) {
        case "--name" -> name = v;
        case "--scopes" -> {
          for (String s : v.split(",")) {
            scopes.add(
                Scope.parse(s)
                    .orElseThrow(() -> new IllegalArgumentException("unknown scope " + s)));
          }
        }
        case "--devices" -> devices.addAll(Arrays.asList(v.split(",")));
        case "--rate" -> {
          try {
            rate = Integer.parseInt(v);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--rate must be an integer");
          }
        }
        default -> throw new IllegalArgumentException("unknown option " + opt);
      }
    }
    if (name == null || name.isBlank() || scopes.isEmpty()) {
      throw new IllegalArgumentException("--name and --scopes are required");
    }
    DevicePatterns.of(devices);
    return new KeyRecord("", name, new byte[0], scopes, devices, rate, null, null, null);
  }
}
