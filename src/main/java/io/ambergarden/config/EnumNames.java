package io.ambergarden.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** Enum constants as settings name them: in any case, with '-' for '_'. */
public final class EnumNames {
  private EnumNames() {}

  /** The constant {@code text} names, if any. */
  public static <E extends Enum<E>> Optional<E> parse(Class<E> type, String text) {
    String name = text.replace('-', '_');
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(name)) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /** "must be one of [a, b], got 'x'": the error for a setting that names none of them. */
  public static String mustBeOneOf(Class<? extends Enum<?>> type, String got) {
    return "must be one of "
        + Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT)
        + ", got '"
        + got
        + "'";
  }
}
