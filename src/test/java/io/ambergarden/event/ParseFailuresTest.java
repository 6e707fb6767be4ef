package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.ContentReference;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class ParseFailuresTest {

  private final ParseFailures failures = new ParseFailures(EventLimits.defaults());
  private final ErrorCollector errors = new ErrorCollector();

  /**
   * What Jackson really throws for {@code json}, so the message matching is checked against the
   * library.
   */
  private static IOException thrownByJackson(JsonFactory factory, String json) {
    try (JsonParser p = factory.createParser(json)) {
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        if (t.isNumeric()) {
          p.getNumberValue();
        } else if (t == JsonToken.VALUE_STRING) {
          p.getText();
        }
      }
    } catch (IOException e) {
      return e;
    }
    throw new AssertionError("no exception for " + json);
  }

  private static JsonFactory factory(StreamReadConstraints c) {
    return JsonFactory.builder().streamReadConstraints(c).build();
  }

  @Test
  void tooDeepNestingIsPinnedToTheEventAndFieldBeingRead() {
    errors.eventIndex = 3;
    errors.currentField = "payload";
    failures.report(
        thrownByJackson(
            factory(StreamReadConstraints.builder().maxNestingDepth(2).build()), "[[[1]]]"),
        -1,
        0,
        errors);
    assertThat(errors.errors)
        .containsExactly(new FieldError(3, "payload", "JSON is nested deeper than 16 levels"));
  }

  @Test
  void otherParserLimitsGetTheirOwnMessage() {
    failures.report(
        thrownByJackson(
            factory(StreamReadConstraints.builder().maxNumberLength(5).build()), "123456789"),
        -1,
        0,
        errors);
    failures.report(
        thrownByJackson(
            factory(StreamReadConstraints.builder().maxStringLength(5).build()), "\"123456789\""),
        -1,
        0,
        errors);
    failures.report(
        thrownByJackson(
            factory(StreamReadConstraints.builder().maxNameLength(5).build()), "{\"123456789\":1}"),
        -1,
        0,
        errors);
    assertThat(errors.errors)
        .extracting(FieldError::message)
        .containsExactly(
            "number has too many digits", "string is too long", "field name is too long");
    assertThat(errors.errors).extracting(FieldError::field).containsOnly(FieldError.DOCUMENT);
  }

  @Test
  void malformedJsonNamesTheNdjsonLineAndTheColumn() {
    failures.report(thrownByJackson(new JsonFactory(), "{\"a\" 1}"), 4, 5, errors);
    assertThat(errors.errors)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.index()).isEqualTo(4);
              assertThat(e.field()).isEqualTo(FieldError.DOCUMENT);
              assertThat(e.message())
                  .startsWith("malformed JSON at line 5, column 6: Unexpected character ('1'");
            });
  }

  @Test
  void theCapUnwindAndProgrammingErrorsAreNotSwallowed() {
    assertThatThrownBy(() -> failures.report(ErrorCollector.CapReached.INSTANCE, -1, 0, errors))
        .isSameAs(ErrorCollector.CapReached.INSTANCE);
    NullPointerException npe = new NullPointerException("bug");
    assertThatThrownBy(() -> failures.report(npe, -1, 0, errors)).isSameAs(npe);
    assertThat(errors.errors).isEmpty();
  }

  @Test
  void wherePrefersTheNdjsonLineNumber() {
    JsonLocation loc = new JsonLocation(ContentReference.unknown(), 10L, 1, 9);
    assertThat(ParseFailures.where(loc, 0)).isEqualTo("line 1, column 9");
    assertThat(ParseFailures.where(loc, 12)).isEqualTo("line 12, column 9");
    assertThat(ParseFailures.where(null, 12)).isEqualTo("unknown position");
  }
}
