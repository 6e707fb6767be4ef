package io.ambergarden.media;

import io.ambergarden.config.AmberConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Deployable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** The device-image verticles this instance runs, in deployment order (none when disabled). */
public final class MediaVerticles {
  /** One deployment: how to make the verticle, and how many instances. */
  public record Deployment(Supplier<Deployable> verticle, int instances) {}

  private MediaVerticles() {}

  public static List<Deployment> of(AmberConfig config, String instanceId, MeterRegistry registry) {
    List<Deployment> out = new ArrayList<>();
    if (!config.media().enabled()) {
      return out;
    }
    out.add(new Deployment(() -> new ImageStoreVerticle(config), 1));
    out.add(
        new Deployment(() -> new ImageListVerticle(config, registry), config.query().instances()));
    if (config.media().sweepEnabled()) {
      out.add(new Deployment(() -> new MediaSweepVerticle(config, instanceId, registry), 1));
    }
    return out;
  }
}
