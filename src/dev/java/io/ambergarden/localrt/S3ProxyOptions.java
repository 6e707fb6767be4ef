package io.ambergarden.localrt;

import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * Where and how the local S3-compatible server (S3Proxy) runs. Like {@link LocalRuntimeOptions},
 * every value can be overridden by a system property or, for the dev instance, an environment
 * variable:
 *
 * <table>
 *   <caption>Overrides</caption>
 *   <tr><th>System property</th><th>Environment variable</th><th>Default (dev / tests)</th></tr>
 *   <tr><td>amber.localrt.s3.port</td><td>AMBER_LOCALRT_S3_PORT</td><td>9000 / 19100</td></tr>
 *   <tr><td>amber.localrt.s3.heap</td><td>AMBER_LOCALRT_S3_HEAP</td><td>256M</td></tr>
 *   <tr><td>amber.localrt.s3proxy.version</td><td>AMBER_LOCALRT_S3PROXY_VERSION</td><td>4.1.0</td></tr>
 * </table>
 */
public record S3ProxyOptions(int port, String heap, String version) {
  public static final int DEV_PORT = 9000;
  public static final int TEST_PORT = 19100;

  /** The dev defaults with system property and environment overrides applied. */
  public static S3ProxyOptions fromEnvironment() {
    return new S3ProxyOptions(DEV_PORT, "256M", "4.1.0")
        .overriddenBy(System::getProperty, System::getenv);
  }

  /** The test defaults with system property overrides only (not a dev instance's variables). */
  public static S3ProxyOptions forTests() {
    return new S3ProxyOptions(TEST_PORT, "256M", "4.1.0")
        .overriddenBy(System::getProperty, name -> null);
  }

  S3ProxyOptions overriddenBy(UnaryOperator<String> props, UnaryOperator<String> env) {
    String prefix = LocalRuntimeOptions.PREFIX;
    String p = lookup(props, env, prefix + "s3.port");
    int port = this.port;
    if (p != null) {
      try {
        port = Integer.parseInt(p);
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException(prefix + "s3.port must be a TCP port, got '" + p + "'");
      }
    }
    String h = lookup(props, env, prefix + "s3.heap");
    String v = lookup(props, env, prefix + "s3proxy.version");
    return new S3ProxyOptions(port, h == null ? heap : h, v == null ? version : v);
  }

  private static String lookup(UnaryOperator<String> props, UnaryOperator<String> env, String key) {
    String v = props.apply(key);
    if (v == null || v.isBlank()) {
      v = env.apply(key.toUpperCase(Locale.ROOT).replace('.', '_'));
    }
    return v == null || v.isBlank() ? null : v.trim();
  }
}
