package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.LocalDate;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class QueryParamsTest {
  /**
   * Asserts a 400 that names the parameter, in the detail and as the one error's field; returns its
   * message.
   */
  private static String rejected(String param, ThrowingCallable call) {
    ApiException e = catchThrowableOfType(ApiException.class, call);
    assertThat(e).as("an ApiException for %s", param).isNotNull();
    assertThat(e.status()).isEqualTo(400);
    assertThat(e.title()).isEqualTo("Bad Request");
    assertThat(e.getMessage()).startsWith(param + ": ");
    assertThat(e.errors()).hasSize(1);
    JsonObject err = e.errors().getJsonObject(0);
    assertThat(err.getString("field")).isEqualTo(param);
    assertThat(err.getString("message")).isNotBlank();
    assertThat(e.getMessage()).isEqualTo(param + ": " + err.getString("message"));
    return err.getString("message");
  }

  // ---- id

  @ParameterizedTest
  @ValueSource(strings = {"a", "M-10086", "dev_1.sensor:temp", "A.B", "...", ".a", "0", "x-"})
  void idAcceptsIdCharacters(String id) {
    assertThat(QueryParams.id("id", id)).isEqualTo(id);
  }

  @Test
  void idAcceptsExactly128Characters() {
    String id = "a".repeat(128);
    assertThat(QueryParams.id("id", id)).isEqualTo(id);
    rejected("id", () -> QueryParams.id("id", id + "a"));
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(
      strings = {
        "", ".", "..", "a b", "a/b", "a\\b", "a%2Fb", "ü", "dev\n", "a?b", "a#b", "a*", " a",
        "\u0661"
      })
  void idRejectsAnythingElse(String id) {
    String msg = rejected("deviceId", () -> QueryParams.id("deviceId", id));
    assertThat(msg).contains("1-128");
  }

  // ---- limit and intIn

  @Test
  void limitIsTheDefaultWhenAbsentAndTheValueWhenInRange() {
    assertThat(QueryParams.limit(null, 100, 1000)).isEqualTo(100);
    assertThat(QueryParams.limit("1", 100, 1000)).isEqualTo(1);
    assertThat(QueryParams.limit("1000", 100, 1000)).isEqualTo(1000);
    assertThat(QueryParams.limit("250", 100, 1000)).isEqualTo(250);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"0", "-1", "1001", "", " ", "ten", "1.5", "1e3", "10 ", "0x10", "99999999999"})
  void limitRejectsWhatIsNotAnIntegerInOneToMax(String value) {
    String msg = rejected("limit", () -> QueryParams.limit(value, 100, 1000));
    assertThat(msg).contains("1..1000");
  }

  @Test
  void intInChecksBothBoundsInclusively() {
    assertThat(QueryParams.intIn("minutes", "5", 60, 5, 10)).isEqualTo(5);
    assertThat(QueryParams.intIn("minutes", "10", 60, 5, 10)).isEqualTo(10);
    assertThat(QueryParams.intIn("minutes", null, 60, 5, 10))
        .as("the fallback is not range-checked")
        .isEqualTo(60);
    assertThat(QueryParams.intIn("n", "-3", 0, -5, 5)).isEqualTo(-3);
    assertThat(QueryParams.intIn("n", String.valueOf(Integer.MAX_VALUE), 0, 0, Integer.MAX_VALUE))
        .isEqualTo(Integer.MAX_VALUE);
    assertThat(rejected("minutes", () -> QueryParams.intIn("minutes", "4", 60, 5, 10)))
        .contains("5..10");
    assertThat(rejected("minutes", () -> QueryParams.intIn("minutes", "11", 60, 5, 10)))
        .contains("5..10");
    rejected("n", () -> QueryParams.intIn("n", "2147483648", 0, 0, Integer.MAX_VALUE));
  }

  // ---- day

  @Test
  void dayParsesYyyyMmDdAndFallsBackWhenAbsent() {
    LocalDate today = LocalDate.of(2026, 3, 1);
    assertThat(QueryParams.day("day", null, today)).isEqualTo(today);
    assertThat(QueryParams.day("day", "2026-07-15", today)).isEqualTo(LocalDate.of(2026, 7, 15));
    assertThat(QueryParams.day("day", "2024-02-29", today)).isEqualTo(LocalDate.of(2024, 2, 29));
    assertThat(QueryParams.day("day", "2026-12-31", today)).isEqualTo(LocalDate.of(2026, 12, 31));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "2026-02-30",
        "2026-02-29",
        "2025-02-29",
        "2026-04-31",
        "2026-13-01",
        "2026-00-10",
        "2026-01-00",
        "2026-01-32"
      })
  void dayRejectsDatesThatDoNotExist(String value) {
    String msg = rejected("day", () -> QueryParams.day("day", value, LocalDate.EPOCH));
    assertThat(msg).contains("not a valid date");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "2026-7-15",
        "2026-07-5",
        "26-07-15",
        "20260715",
        "2026/07/15",
        "15-07-2026",
        "2026-07-15T00:00:00Z",
        "2026-07-15Z",
        " 2026-07-15",
        "2026-07-15 ",
        "+2026-07-15",
        "12026-07-15",
        "2026-O7-15",
        "today",
        "\u0662\u0660\u0662\u0666-07-15"
      })
  void dayRejectsOtherFormats(String value) {
    String msg = rejected("day", () -> QueryParams.day("day", value, LocalDate.EPOCH));
    assertThat(msg).contains("YYYY-MM-DD");
  }

  // ---- time

  @Test
  void timeTakesEpochMillisOrIsoWithOffsetAndFallsBackWhenAbsent() {
    long t = Instant.parse("2026-07-15T00:00:00Z").toEpochMilli();
    assertThat(QueryParams.time("from", null, 42L)).isEqualTo(42L);
    assertThat(QueryParams.time("from", Long.toString(t), 0)).isEqualTo(t);
    assertThat(QueryParams.time("from", "2026-07-15T00:00:00Z", 0)).isEqualTo(t);
    assertThat(QueryParams.time("from", "2026-07-15T08:00:00.250+08:00", 0)).isEqualTo(t + 250);
    assertThat(QueryParams.time("to", "-1", 0)).isEqualTo(-1L);
  }

  @Test
  void timeWithoutAnOffsetIsRejectedSayingAnOffsetIsNeeded() {
    assertThat(rejected("to", () -> QueryParams.time("to", "2026-07-15T00:00:00", 0)))
        .contains("offset");
    assertThat(rejected("to", () -> QueryParams.time("to", "2026-07-15", 0))).contains("time");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "yesterday", "1.5", "2026-02-30T00:00:00Z", "99999999999999999999", "+5"})
  void timeRejectsJunkNamingTheParameter(String value) {
    rejected("since", () -> QueryParams.time("since", value, 0));
  }

  @Test
  void aStatusIsPrintableAsciiOfBoundedLength() {
    assertThat(QueryParams.status("status", "fault")).isEqualTo("fault");
    assertThatThrownBy(() -> QueryParams.status("status", ""))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("status");
    assertThatThrownBy(() -> QueryParams.status("status", "x".repeat(33)))
        .isInstanceOf(ApiException.class);
    assertThatThrownBy(() -> QueryParams.status("status", "bad\u0001"))
        .isInstanceOf(ApiException.class);
  }

  @Test
  void aBooleanIsTrueOrFalseOnly() {
    assertThat(QueryParams.bool("abnormal", "true")).isTrue();
    assertThat(QueryParams.bool("abnormal", "false")).isFalse();
    assertThatThrownBy(() -> QueryParams.bool("abnormal", "yes"))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("abnormal");
  }
}
