package io.ambergarden.localrt;

import io.ambergarden.AmberGarden;
import io.ambergarden.auth.ApiKeys;
import io.ambergarden.auth.KeyRecord;
import io.ambergarden.auth.Scope;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The run command's admin key: the one in {@code .runtime/admin.key} while it is still valid in the
 * local keyspace, else a new one, written there (mode 600). Local use only.
 */
final class LocalAdminKey {
  private LocalAdminKey() {}

  static String ensure(AmberGarden app, Path file) throws Exception {
    Optional<String> existing = read(file);
    if (existing.isPresent()) {
      Optional<ApiKeys.Presented> p = ApiKeys.parse(existing.get());
      if (p.isPresent()) {
        Optional<KeyRecord> stored =
            app.gatekeeper().store().find(p.get().id()).await(30, TimeUnit.SECONDS);
        if (stored.isPresent()
            && !stored.get().revoked()
            && ApiKeys.matches(p.get(), stored.get().hash())) {
          return existing.get();
        }
      }
    }
    ApiKeys.Minted m = ApiKeys.mint();
    KeyRecord record =
        new KeyRecord(
            m.id(),
            "local admin (mvn -Prun)",
            m.hash(),
            Set.of(Scope.values()),
            List.of(),
            0,
            Instant.now(),
            "dev-run",
            null);
    app.gatekeeper().store().create(record).await(30, TimeUnit.SECONDS);
    Files.createDirectories(file.getParent());
    Files.writeString(file, m.text() + "\n", StandardCharsets.UTF_8);
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system; the file stays under the git-ignored .runtime/
    }
    return m.text();
  }

  private static Optional<String> read(Path file) {
    try {
      return Files.isRegularFile(file)
          ? Optional.of(Files.readString(file, StandardCharsets.UTF_8).trim())
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
