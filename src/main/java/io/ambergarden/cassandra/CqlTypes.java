package io.ambergarden.cassandra;

import com.datastax.oss.driver.api.core.type.reflect.GenericType;
import java.util.Map;

/**
 * Collection types built once: GenericType.mapOf resolves generics reflectively, which showed up in
 * profiles when done per bound value.
 */
public final class CqlTypes {
  public static final GenericType<Map<String, Double>> METRICS =
      GenericType.mapOf(String.class, Double.class);
  public static final GenericType<Map<String, String>> TAGS =
      GenericType.mapOf(String.class, String.class);

  private CqlTypes() {}
}
