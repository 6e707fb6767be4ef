package io.ambergarden.it;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What an IT measured, for the test's output: through the logger, never System.out. */
final class ItLog {
  private static final Logger LOG = LoggerFactory.getLogger("io.ambergarden.it");

  private ItLog() {}

  static void printf(String format, Object... args) {
    LOG.info(String.format(format, args).stripTrailing());
  }

  static void println(Object line) {
    LOG.info(String.valueOf(line));
  }
}
