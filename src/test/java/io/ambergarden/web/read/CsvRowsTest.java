package io.ambergarden.web.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.event.Event;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CsvRowsTest {
  private static final long TS = 1_752_537_600_123L; // 2025-07-15T00:00:00.123Z

  private static Event event(String eventId, String type, String status, Integer code) {
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("temperature", 36.5);
    metrics.put("voltage", 230.0);
    metrics.put("delta", -4.25);
    return new Event("dev-1", TS, eventId, type, status, code, metrics, Map.of(), null);
  }

  private static String row(Event e, List<String> metrics) {
    StringBuilder out = new StringBuilder();
    CsvRows.append(out, e, metrics);
    return out.toString();
  }

  @Test
  void theHeaderListsTheFixedColumnsThenTheMetricsInTheOrderAsked() {
    assertThat(CsvRows.header(List.of("voltage", "temperature")))
        .isEqualTo("ts,eventId,deviceType,status,code,voltage,temperature\r\n");
  }

  @Test
  void aRowHasIsoUtcMillisAndTheMetricsInHeaderOrder() {
    assertThat(row(event("e1", "charger", "normal", 200), List.of("voltage", "temperature")))
        .isEqualTo("2025-07-15T00:00:00.123Z,e1,charger,normal,200,230,36.5\r\n");
  }

  @Test
  void aWholeSecondStillShowsItsMilliseconds() {
    Event e = new Event("d", 1_752_537_600_000L, "", null, null, null, Map.of(), Map.of(), null);
    assertThat(row(e, List.of())).startsWith("2025-07-15T00:00:00.000Z,");
  }

  @Test
  void missingValuesAreEmptyCells() {
    Event e = new Event("d", TS, "", null, null, null, Map.of("a", 1.0), Map.of(), null);
    assertThat(row(e, List.of("b", "a", "c"))).isEqualTo("2025-07-15T00:00:00.123Z,,,,,,1,\r\n");
  }

  @Test
  void negativeMetricsStayNumbersWithoutTheFormulaGuard() {
    assertThat(row(event("e", null, null, -1), List.of("delta")))
        .isEqualTo("2025-07-15T00:00:00.123Z,e,,,-1,-4.25\r\n");
  }

  @Test
  void largeAndFractionalNumbersKeepTheirValue() {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("big", 1e20);
    m.put("tiny", 1e-7);
    m.put("whole", 123456789012.0);
    Event e = new Event("d", TS, "", null, null, null, m, Map.of(), null);
    String cells = row(e, List.of("big", "tiny", "whole"));
    String[] parts = cells.trim().split(",");
    assertThat(Double.parseDouble(parts[5])).isEqualTo(1e20);
    assertThat(Double.parseDouble(parts[6])).isEqualTo(1e-7);
    assertThat(parts[7]).isEqualTo("123456789012");
  }

  @Test
  void cellsWithCommasQuotesOrLineBreaksAreQuotedWithQuotesDoubled() {
    assertThat(CsvRows.text("a,b")).isEqualTo("\"a,b\"");
    assertThat(CsvRows.text("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
    assertThat(CsvRows.text("two\nlines")).isEqualTo("\"two\nlines\"");
    assertThat(CsvRows.text("cr\rhere")).isEqualTo("\"cr\rhere\"");
    assertThat(CsvRows.text("plain text")).isEqualTo("plain text");
  }

  @Test
  void nullAndEmptyTextAreEmptyCells() {
    assertThat(CsvRows.text(null)).isEmpty();
    assertThat(CsvRows.text("")).isEmpty();
  }

  @Test
  void textStartingLikeAFormulaIsPrefixedWithAQuote() {
    assertThat(CsvRows.text("=1+2")).isEqualTo("'=1+2");
    assertThat(CsvRows.text("+1")).isEqualTo("'+1");
    assertThat(CsvRows.text("-1")).isEqualTo("'-1");
    assertThat(CsvRows.text("@SUM(A1)")).isEqualTo("'@SUM(A1)");
    assertThat(CsvRows.text("\tx")).isEqualTo("'\tx");
    assertThat(CsvRows.text("a=b")).isEqualTo("a=b");
  }

  @Test
  void aGuardedCellThatNeedsQuotesHasTheGuardInsideTheQuotes() {
    assertThat(CsvRows.text("=HYPERLINK(\"http://x\",\"y\")"))
        .isEqualTo("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
    assertThat(CsvRows.text("\rcr")).isEqualTo("\"'\rcr\"");
  }

  @Test
  void textColumnsOfARowAreGuardedAndQuoted() {
    assertThat(row(event("-e", "@type", "=cmd,|x", 500), List.of()))
        .isEqualTo("2025-07-15T00:00:00.123Z,'-e,'@type,\"'=cmd,|x\",500\r\n");
  }

  @Test
  void metricNamesInTheHeaderAreGuardedToo() {
    assertThat(CsvRows.header(List.of("-x", "y"))).endsWith(",'-x,y\r\n");
  }

  @Test
  void everyRowParsesBackToItsCellsWithAnRfc4180Reader() {
    Event e = event("id,\"1\"", "=t", "line\nbreak", 7);
    List<String> cells = parseRow(row(e, List.of("temperature")));
    assertThat(cells)
        .containsExactly("2025-07-15T00:00:00.123Z", "id,\"1\"", "'=t", "line\nbreak", "7", "36.5");
  }

  /** A minimal RFC 4180 reader of one record ending with CRLF. */
  static List<String> parseRow(String s) {
    List<String> out = new java.util.ArrayList<>();
    StringBuilder cell = new StringBuilder();
    boolean quoted = false;
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < s.length() && s.charAt(i + 1) == '"') {
          cell.append('"');
          i += 2;
          continue;
        }
        if (c == '"') {
          quoted = false;
        } else {
          cell.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        out.add(cell.toString());
        cell.setLength(0);
      } else if (c == '\r' && s.startsWith("\r\n", i)) {
        out.add(cell.toString());
        return out;
      } else {
        cell.append(c);
      }
      i++;
    }
    throw new IllegalArgumentException("no CRLF at the end: " + s);
  }
}
