package io.ambergarden.web.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.bus.SeriesQuery;
import io.ambergarden.web.ApiException;
import org.junit.jupiter.api.Test;

class SeriesParamsTest {
  static final long H = 3_600_000L;
  static final long OLDEST = 100 * H;
  static final long NOW = 200 * H;

  static SeriesQuery.Request of(String metric, String from, String to, String step, int max) {
    return SeriesParams.of("M-1", metric, from, to, step, OLDEST, NOW, max);
  }

  static String fieldOf(Runnable r) {
    try {
      r.run();
    } catch (ApiException e) {
      assertThat(e.status()).isEqualTo(400);
      return e.errors().getJsonObject(0).getString("field");
    }
    throw new AssertionError("no 400");
  }

  @Test
  void aValidRequestCarriesItsRangeAndStep() {
    SeriesQuery.Request q = of("temp", "" + (150 * H), "" + (151 * H), "PT5M", 1000);
    assertThat(q).isEqualTo(new SeriesQuery.Request("M-1", "temp", 150 * H, 151 * H, 300_000L));
  }

  @Test
  void aMissingRangeIsTheRetentionUpToNow() {
    SeriesQuery.Request q = of("temp", null, null, "1h", 1000);
    assertThat(q.from()).isEqualTo(OLDEST);
    assertThat(q.to()).isEqualTo(NOW);
  }

  @Test
  void aFromBeforeTheRetentionStartsAtTheRetention() {
    assertThat(of("temp", "0", null, "1d", 1000).from()).isEqualTo(OLDEST);
  }

  @Test
  void aMissingOrMalformedMetricIsA400NamingIt() {
    assertThat(fieldOf(() -> of(null, null, null, "1h", 1000))).isEqualTo("metric");
    assertThat(fieldOf(() -> of("a b", null, null, "1h", 1000))).isEqualTo("metric");
  }

  @Test
  void aMissingOrBadStepIsA400NamingIt() {
    assertThat(fieldOf(() -> of("temp", null, null, null, 1000))).isEqualTo("step");
    assertThat(fieldOf(() -> of("temp", null, null, "7m", 1000))).isEqualTo("step");
    assertThat(fieldOf(() -> of("temp", null, null, "90m", 1000))).isEqualTo("step");
  }

  @Test
  void aBadTimeOrAnEmptyRangeIsA400NamingIt() {
    assertThat(fieldOf(() -> of("temp", "yesterday", null, "1h", 1000))).isEqualTo("from");
    assertThat(fieldOf(() -> of("temp", null, "x", "1h", 1000))).isEqualTo("to");
    assertThat(fieldOf(() -> of("temp", "" + (150 * H), "" + (150 * H), "1h", 1000)))
        .isEqualTo("from");
    assertThat(fieldOf(() -> of("temp", "" + (151 * H), "" + (150 * H), "1h", 1000)))
        .isEqualTo("from");
  }

  @Test
  void moreBucketsThanTheMaximumPointsIsA400NamingTheLimit() {
    String from = "" + (150 * H);
    String to = "" + (151 * H);
    assertThat(of("temp", from, to, "1m", 60).stepMillis()).isEqualTo(60_000L);
    assertThatThrownBy(() -> of("temp", from, to, "1m", 59))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("query.series-max-points")
        .hasMessageContaining("60 buckets")
        .hasMessageContaining("59");
  }
}
