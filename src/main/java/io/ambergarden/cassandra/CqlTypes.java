package io.ambergarden.cassandra;

import com.datastax.oss.driver.api.core.type.codec.TypeCodec;
import com.datastax.oss.driver.api.core.type.codec.TypeCodecs;
import java.util.Map;

/**
 * Codecs of the schema's collection columns, resolved once. Binding or reading with a codec skips
 * the registry lookup that {@code get(i, GenericType)} does per value (hashing the generic type
 * into its cache), which showed up in profiles of the write and the read path. A codec is not
 * checked against the column's type, so use each only on the columns named here.
 */
public final class CqlTypes {
  /** {@code metrics map<text, double>}. */
  public static final TypeCodec<Map<String, Double>> METRICS =
      TypeCodecs.mapOf(TypeCodecs.TEXT, TypeCodecs.DOUBLE);

  /** {@code tags map<text, text>}. */
  public static final TypeCodec<Map<String, String>> TAGS =
      TypeCodecs.mapOf(TypeCodecs.TEXT, TypeCodecs.TEXT);

  private CqlTypes() {}
}
