package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class PayloadCopierTest {

  private static final JsonFactory FACTORY =
      JsonFactory.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

  private final PayloadCopier copier = new PayloadCopier(EventLimits.defaults());
  private final ParseRun run = new ParseRun(Events.NOW, false, EventLimits.defaults());

  /**
   * Copies the value of "p" in {@code {"p": value, "next": 1}} and checks the parser then reads
   * "next".
   */
  private String copyValueOf(PayloadCopier c, String value) throws IOException {
    try (JsonParser p = FACTORY.createParser("{\"p\": " + value + ", \"next\": 1}")) {
      p.nextToken();
      assertThat(p.nextFieldName()).isEqualTo("p");
      JsonToken first = p.nextToken();
      String copied = c.copy(p, first, 7, run);
      assertThat(p.nextFieldName()).as("the parser is past the value").isEqualTo("next");
      return copied;
    }
  }

  @Test
  void copiesAnyValueAsCompactJson() throws IOException {
    assertThat(copyValueOf(copier, "{ \"a\" : [ 1 , 2.50 , true , null , { } ] }"))
        .isEqualTo("{\"a\":[1,2.50,true,null,{}]}");
    assertThat(copyValueOf(copier, "\"s\"")).isEqualTo("\"s\"");
    assertThat(copyValueOf(copier, "-3e-7")).isEqualTo("-3e-7");
    assertThat(run.errors).isEmpty();
  }

  @Test
  void reusingTheScratchOfARunDoesNotCarryKeysOver() throws IOException {
    assertThat(copyValueOf(copier, "{\"a\":{\"b\":1}}")).isEqualTo("{\"a\":{\"b\":1}}");
    assertThat(copyValueOf(copier, "{\"a\":{\"b\":2}}")).isEqualTo("{\"a\":{\"b\":2}}");
    assertThat(copyValueOf(copier, "[{\"b\":1},{\"b\":2}]")).isEqualTo("[{\"b\":1},{\"b\":2}]");
    assertThat(run.errors).isEmpty();
  }

  @Test
  void aDuplicateKeyIsNamedByItsPathAndTheRestOfTheValueIsSkipped() throws IOException {
    assertThat(copyValueOf(copier, "{\"x\":[0,{\"a\":1,\"a\":[2,{\"deep\":3}]}],\"y\":4}"))
        .isNull();
    assertThat(run.errors)
        .containsExactly(new FieldError(7, "payload.x[1].a", EventParser.MSG_DUPLICATE));
  }

  @Test
  void nonFiniteNumbersAreNamedByTheirPath() throws IOException {
    assertThat(copyValueOf(copier, "[1,[2,NaN]]")).isNull();
    assertThat(copyValueOf(copier, "{\"k\\u0001\":-Infinity}")).isNull();
    assertThat(run.errors)
        .extracting(FieldError::field)
        .containsExactly("payload[1][1]", "payload.k\\u0001");
    assertThat(run.errors)
        .extracting(FieldError::message)
        .containsOnly(EventParser.MSG_PAYLOAD_FINITE);
  }

  @Test
  void theSizeCapCountsTheCompactBytes() throws IOException {
    PayloadCopier small =
        new PayloadCopier(
            EventLimits.defaults()
                .withBatchAndTime(
                    1000, 9, java.time.Duration.ofDays(180), java.time.Duration.ofMinutes(5)));
    assertThat(copyValueOf(small, "[ 1, 2, 3, 4 ]")).isEqualTo("[1,2,3,4]");
    assertThat(copyValueOf(small, "[1,2,3,4,5]")).isNull();
    assertThat(run.errors)
        .containsExactly(
            new FieldError(7, "payload", "payload too large: more than 9 bytes as compact JSON"));
  }

  @Test
  void onlyDigitsStartARealNumber() {
    assertThat(PayloadCopier.isJsonNumberStart("-1.5".toCharArray(), 0, 4)).isTrue();
    assertThat(PayloadCopier.isJsonNumberStart("0".toCharArray(), 0, 1)).isTrue();
    assertThat(PayloadCopier.isJsonNumberStart("NaN".toCharArray(), 0, 3)).isFalse();
    assertThat(PayloadCopier.isJsonNumberStart("-Infinity".toCharArray(), 0, 9)).isFalse();
    assertThat(PayloadCopier.isJsonNumberStart("-".toCharArray(), 0, 1)).isFalse();
    assertThat(PayloadCopier.isJsonNumberStart(new char[0], 0, 0)).isFalse();
  }
}
