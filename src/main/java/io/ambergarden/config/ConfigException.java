package io.ambergarden.config;

/**
 * A bad configuration value. The message always starts with the key, so the operator knows what to
 * fix.
 */
public final class ConfigException extends RuntimeException {
  public ConfigException(String key, String problem) {
    super(key + ": " + problem);
  }
}
