package io.ambergarden.cassandra;

import com.datastax.oss.driver.api.core.ProtocolVersion;
import com.datastax.oss.driver.api.core.type.DataType;
import com.datastax.oss.driver.api.core.type.DataTypes;
import com.datastax.oss.driver.api.core.type.codec.TypeCodec;
import com.datastax.oss.driver.api.core.type.codec.TypeCodecs;
import com.datastax.oss.driver.api.core.type.reflect.GenericType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Codecs of the schema's collection columns, resolved once. Binding or reading with a codec skips
 * the registry lookup that {@code get(i, GenericType)} does per value (hashing the generic type
 * into its cache), which showed up in profiles of the write and the read path. A codec is not
 * checked against the column's type, so use each only on the columns named here.
 */
public final class CqlTypes {
  /**
   * {@code text}, encoded with {@link String#getBytes}: the driver's own codec runs a charset
   * encoder over a char buffer per value, which was the write path's largest allocation site (a
   * tenth of its bytes) and a few percent of its CPU. The same bytes for every valid string (the
   * event parser refuses invalid UTF-8); decoding is the driver's.
   */
  public static final TypeCodec<String> TEXT = new Utf8Text();

  /** {@code metrics map<text, double>}. */
  public static final TypeCodec<Map<String, Double>> METRICS =
      TypeCodecs.mapOf(TEXT, TypeCodecs.DOUBLE);

  /** {@code tags map<text, text>}. */
  public static final TypeCodec<Map<String, String>> TAGS = TypeCodecs.mapOf(TEXT, TEXT);

  private CqlTypes() {}

  private static final class Utf8Text implements TypeCodec<String> {
    @Override
    public GenericType<String> getJavaType() {
      return GenericType.STRING;
    }

    @Override
    public DataType getCqlType() {
      return DataTypes.TEXT;
    }

    @Override
    public boolean accepts(Object value) {
      return value instanceof String;
    }

    @Override
    public boolean accepts(Class<?> javaClass) {
      return javaClass == String.class;
    }

    @Override
    public ByteBuffer encode(String value, ProtocolVersion protocolVersion) {
      return value == null ? null : ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String decode(ByteBuffer bytes, ProtocolVersion protocolVersion) {
      return TypeCodecs.TEXT.decode(bytes, protocolVersion);
    }

    @Override
    public String format(String value) {
      return TypeCodecs.TEXT.format(value);
    }

    @Override
    public String parse(String value) {
      return TypeCodecs.TEXT.parse(value);
    }
  }
}
