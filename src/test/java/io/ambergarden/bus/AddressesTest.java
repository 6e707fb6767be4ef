package io.ambergarden.bus;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class AddressesTest {
  /** Every class of the bus package, nested ones included, as compiled. */
  private static List<Class<?>> busClasses() throws Exception {
    Path dir =
        Path.of(Addresses.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .resolve("io/ambergarden/bus");
    List<Class<?>> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
        String name = f.getFileName().toString().replace(".class", "");
        out.add(Class.forName("io.ambergarden.bus." + name));
      }
    }
    return out;
  }

  @Test
  void everyEndpointDeclaredInTheBusIsListedSoItsCodecsAreRegistered() throws Exception {
    List<Endpoint<?, ?>> declared = new ArrayList<>();
    for (Class<?> c : busClasses()) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers()) && f.getType() == Endpoint.class) {
          f.setAccessible(true);
          declared.add((Endpoint<?, ?>) f.get(null));
        }
      }
    }
    assertThat(declared).hasSizeGreaterThan(10);
    assertThat(Addresses.ENDPOINTS).containsExactlyInAnyOrderElementsOf(declared);
    assertThat(Addresses.ENDPOINTS.stream().map(Endpoint::address)).doesNotHaveDuplicates();
  }

  @Test
  void aRequestCarriesItsRequestIdAndGetsItsTypedReply() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      LocalCodec.registerAll(vertx);
      AtomicReference<String> seenId = new AtomicReference<>();
      ActivityQuery.ENDPOINT
          .consumer(
              vertx,
              m -> {
                seenId.set(RequestId.of(m));
                m.reply(new ActivityQuery.Reply(m.body().minutes(), 1, 2, 3, false));
              })
          .completion()
          .toCompletionStage()
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);

      ActivityQuery.Reply reply =
          ActivityQuery.ENDPOINT
              .request(vertx, new ActivityQuery.Request(15), "req-7", 5_000)
              .toCompletionStage()
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);

      assertThat(reply.minutes()).isEqualTo(15);
      assertThat(reply.devices()).isEqualTo(3);
      assertThat(seenId.get()).isEqualTo("req-7");
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
