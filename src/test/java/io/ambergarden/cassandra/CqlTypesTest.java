package io.ambergarden.cassandra;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ProtocolVersion;
import com.datastax.oss.driver.api.core.type.codec.TypeCodecs;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CqlTypesTest {
  private static final ProtocolVersion V5 = ProtocolVersion.V5;

  @Test
  void textIsEncodedToTheSameBytesAsTheDriversCodecAndReadsBack() {
    for (String s :
        List.of("", "dev-0001", "été", "温度传感器", "emoji \uD83D\uDE00 pair", "x".repeat(10_000))) {
      assertThat(CqlTypes.TEXT.encode(s, V5)).as(s).isEqualTo(TypeCodecs.TEXT.encode(s, V5));
      assertThat(CqlTypes.TEXT.decode(CqlTypes.TEXT.encode(s, V5), V5)).isEqualTo(s);
    }
  }

  @Test
  void aNullIsBoundAsNull() {
    assertThat(CqlTypes.TEXT.encode(null, V5)).isNull();
  }

  @Test
  void mapsWithTextKeysEncodeAsTheDriversDo() {
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("temperature", 21.5);
    metrics.put("влажность", 0.1);
    Map<String, String> tags = Map.of("site", "東京");

    assertThat(CqlTypes.METRICS.encode(metrics, V5))
        .isEqualTo(TypeCodecs.mapOf(TypeCodecs.TEXT, TypeCodecs.DOUBLE).encode(metrics, V5));
    assertThat(CqlTypes.TAGS.encode(tags, V5))
        .isEqualTo(TypeCodecs.mapOf(TypeCodecs.TEXT, TypeCodecs.TEXT).encode(tags, V5));
    assertThat(CqlTypes.METRICS.decode(CqlTypes.METRICS.encode(metrics, V5), V5))
        .isEqualTo(metrics);
  }
}
