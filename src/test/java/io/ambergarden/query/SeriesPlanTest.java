package io.ambergarden.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.query.SeriesPlan.Range;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SeriesPlanTest {
  static final long H = 3_600_000L;
  static final long T0 = 1_000 * H;

  static long h(int n) {
    return T0 + n * H;
  }

  @Test
  void reconciledHoursComeFromRollupsAndTheRestFromDetail() {
    SeriesPlan p = SeriesPlan.of(h(0), h(6), h(4), Set.of());
    assertThat(p.rollupHours()).containsExactly(h(0), h(1), h(2), h(3));
    assertThat(p.detail()).containsExactly(new Range(h(4), h(6)));
  }

  @Test
  void aReopenedHourIsReadFromDetailEvenBeforeReconciledThrough() {
    SeriesPlan p = SeriesPlan.of(h(0), h(4), h(4), Set.of(h(1)));
    assertThat(p.rollupHours()).containsExactly(h(0), h(2), h(3));
    assertThat(p.detail()).containsExactly(new Range(h(1), h(2)));
  }

  @Test
  void withNothingReconciledEveryHourIsReadFromDetailAsOneRange() {
    SeriesPlan p = SeriesPlan.of(h(0), h(3), null, Set.of());
    assertThat(p.rollupHours()).isEmpty();
    assertThat(p.detail()).containsExactly(new Range(h(0), h(3)));
  }

  @Test
  void partialHoursAtEitherEndAreReadFromDetail() {
    SeriesPlan p = SeriesPlan.of(h(0) + 5, h(3) + 7, h(10), Set.of());
    assertThat(p.rollupHours()).containsExactly(h(1), h(2));
    assertThat(p.detail()).containsExactly(new Range(h(0) + 5, h(1)), new Range(h(3), h(3) + 7));
  }

  @Test
  void aRangeInsideOneHourIsOneDetailRange() {
    SeriesPlan p = SeriesPlan.of(h(0) + 5, h(0) + 9, h(10), Set.of());
    assertThat(p.rollupHours()).isEmpty();
    assertThat(p.detail()).containsExactly(new Range(h(0) + 5, h(0) + 9));
  }

  @Test
  void theHourEndingAtReconciledThroughIsReconciledButTheNextIsNot() {
    SeriesPlan p = SeriesPlan.of(h(0), h(2), h(1), Set.of());
    assertThat(p.rollupHours()).containsExactly(h(0));
    assertThat(p.detail()).containsExactly(new Range(h(1), h(2)));
  }

  @Test
  void everyMillisecondOfTheRangeIsPlannedOnce() {
    long from = h(0) + 123;
    long to = h(30) + 456;
    SeriesPlan p = SeriesPlan.of(from, to, h(20), Set.of(h(3), h(4), h(10)));
    long covered = p.rollupHours().size() * H;
    for (Range r : p.detail()) {
      covered += r.to() - r.from();
    }
    assertThat(covered).isEqualTo(to - from);
    assertThat(p.detail())
        .containsExactly(
            new Range(from, h(1)),
            new Range(h(3), h(5)),
            new Range(h(10), h(11)),
            new Range(h(20), to));
  }

  @Test
  void aStepUnderAnHourReadsTheWholeRangeFromDetail() {
    assertThat(SeriesPlan.detailOnly(5, 9).detail()).isEqualTo(List.of(new Range(5, 9)));
    assertThat(SeriesPlan.detailOnly(5, 9).rollupHours()).isEmpty();
  }
}
