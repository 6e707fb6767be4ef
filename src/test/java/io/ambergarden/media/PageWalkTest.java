package io.ambergarden.media;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.bus.ImageMeta;
import io.ambergarden.bus.PagePosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PageWalkTest {
  static final long DAY = 86_400_000L;
  static final long JAN_31 = Instant.parse("2026-01-31T23:59:00Z").toEpochMilli();
  static final long FEB_1 = Instant.parse("2026-02-01T00:00:30Z").toEpochMilli();
  static final long APR_2 = Instant.parse("2026-04-02T10:00:00Z").toEpochMilli();
  static final long FAR_FUTURE = Instant.parse("2030-01-01T00:00:00Z").toEpochMilli();

  /** The month partitions of one device, ordered as the table orders them. */
  static final class FakeTable {
    static final Comparator<ImageMeta> NEWEST_FIRST =
        Comparator.comparingLong(ImageMeta::createdAt).thenComparing(ImageMeta::imageId).reversed();
    final TreeMap<Integer, List<ImageMeta>> months = new TreeMap<>(Comparator.reverseOrder());
    int reads;

    ImageMeta add(long created, boolean deleted) {
      ImageMeta m =
          new ImageMeta(
              UUID.randomUUID(), "M-1", "image/png", 1, "x", List.of(), created, null, deleted);
      List<ImageMeta> rows = months.computeIfAbsent(Months.of(created), k -> new ArrayList<>());
      rows.add(m);
      rows.sort(NEWEST_FIRST);
      return m;
    }

    List<ImageMeta> read(PageWalk.Read r) {
      reads++;
      return months.getOrDefault(r.month(), List.of()).stream()
          .filter(
              m ->
                  m.createdAt() < r.before()
                      || (r.beforeId() != null
                          && m.createdAt() == r.before()
                          && m.imageId().compareTo(r.beforeId()) < 0))
          .limit(r.limit())
          .toList();
    }

    record Page(List<ImageMeta> items, PagePosition next) {}

    /** What the list verticle does: read the month index, then walk. */
    Page page(long from, long to, int limit, int maxPartitions, int maxScanned, PagePosition pos) {
      int top = pos != null ? (int) pos.bucket() : Months.of(to - 1);
      List<Integer> index =
          months.keySet().stream()
              .filter(m -> m <= top && m >= Months.of(from))
              .limit(maxPartitions + 1)
              .toList();
      PageWalk w = new PageWalk(index, from, to, limit, maxPartitions, maxScanned, pos);
      for (PageWalk.Read r = w.next(); r != null; r = w.next()) {
        w.accept(read(r));
      }
      return new Page(w.items(), w.nextPosition());
    }

    List<ImageMeta> all(long from, long to, int limit, int maxPartitions, int maxScanned) {
      List<ImageMeta> out = new ArrayList<>();
      PagePosition pos = null;
      for (int pages = 0; pages < 1000; pages++) {
        Page p = page(from, to, limit, maxPartitions, maxScanned, pos);
        out.addAll(p.items());
        if (p.next() == null) {
          return out;
        }
        pos = p.next();
      }
      throw new AssertionError("paging did not end");
    }

    List<ImageMeta> visible() {
      return months.values().stream()
          .flatMap(List::stream)
          .filter(m -> !m.deleted())
          .sorted(NEWEST_FIRST)
          .collect(Collectors.toList());
    }
  }

  @Test
  void pagesWalkBackAcrossMonthsAndAGapReturningEveryVisibleImageOnceNewestFirst() {
    FakeTable t = new FakeTable();
    for (int i = 0; i < 7; i++) {
      t.add(JAN_31 - i * 1000, i % 3 == 0);
      t.add(FEB_1 + i * 1000, false);
      t.add(APR_2 + i * 1000, i == 2); // March holds nothing: never read
    }
    t.add(FEB_1, false); // a tie on createdAt, told apart by the image id

    List<ImageMeta> got = t.all(0, FAR_FUTURE, 4, 10, 1000);

    assertThat(got).containsExactlyElementsOf(t.visible());
    assertThat(got).noneMatch(ImageMeta::deleted);
  }

  @Test
  void concurrentInsertsNeverRepeatAnImageAndOlderOnesAppearOnce() {
    FakeTable t = new FakeTable();
    List<ImageMeta> before = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      before.add(t.add(FEB_1 + i * 1000, false));
      before.add(t.add(JAN_31 - i * 1000, false));
    }
    FakeTable.Page first = t.page(0, FAR_FUTURE, 5, 10, 1000, null);
    // while the client pages: a newer image (in front of the cursor) and an older one (behind it)
    t.add(FEB_1 + 60_000, false);
    ImageMeta older = t.add(JAN_31 - 3_600_000, false);
    List<ImageMeta> got = new ArrayList<>(first.items());
    PagePosition pos = first.next();
    while (pos != null) {
      FakeTable.Page p = t.page(0, FAR_FUTURE, 5, 10, 1000, pos);
      got.addAll(p.items());
      pos = p.next();
    }
    assertThat(got).doesNotHaveDuplicates().containsAll(before).contains(older);
    assertThat(got).isSortedAccordingTo(FakeTable.NEWEST_FIRST);
  }

  @Test
  void aPageThatUsedItsMonthBudgetEndsEarlyWithACursorToTheNextMonth() {
    FakeTable t = new FakeTable();
    long t0 = Instant.parse("2026-06-15T00:00:00Z").toEpochMilli();
    for (int month = 0; month < 5; month++) {
      t.add(t0 - month * 31 * DAY, false);
    }
    FakeTable.Page p = t.page(0, FAR_FUTURE, 100, 2, 1000, null);
    assertThat(p.items()).hasSize(2);
    assertThat(p.next()).isNotNull();
    assertThat(p.next().atBucketStart()).isTrue();
    assertThat(p.next().bucket()).isEqualTo(Months.of(t0 - 2 * 31 * DAY));
    assertThat(t.all(0, FAR_FUTURE, 100, 2, 1000)).hasSize(5);
  }

  @Test
  void manyDeletedRowsShortenAPageButLoseNothing() {
    FakeTable t = new FakeTable();
    for (int i = 0; i < 300; i++) {
      t.add(FEB_1 + i, i % 50 != 0);
    }
    FakeTable.Page p = t.page(0, FAR_FUTURE, 10, 10, 40, null);
    assertThat(p.items().size()).isLessThan(10);
    assertThat(p.next()).isNotNull();
    assertThat(t.all(0, FAR_FUTURE, 10, 10, 40)).containsExactlyElementsOf(t.visible()).hasSize(6);
  }

  @Test
  void fromAndToBoundTheListing() {
    FakeTable t = new FakeTable();
    ImageMeta jan = t.add(JAN_31, false);
    ImageMeta feb = t.add(FEB_1, false);
    ImageMeta apr = t.add(APR_2, false);
    assertThat(t.all(JAN_31 + 1, APR_2, 10, 10, 1000)).containsExactly(feb);
    assertThat(t.all(JAN_31, APR_2 + 1, 1, 10, 1000)).containsExactly(apr, feb, jan);
    int readsBefore = t.reads;
    long may = Instant.parse("2026-05-01T00:00:00Z").toEpochMilli();
    assertThat(t.all(may, FAR_FUTURE, 10, 10, 1000)).isEmpty();
    assertThat(t.reads).as("no month indexed in range: no partition read").isEqualTo(readsBefore);
    assertThat(t.all(APR_2 + 1, FAR_FUTURE, 10, 10, 1000)).isEmpty();
  }

  @Test
  void emptyMonthsAreNeverRead() {
    FakeTable t = new FakeTable();
    t.add(APR_2, false);
    t.add(Instant.parse("2024-04-02T10:00:00Z").toEpochMilli(), false);
    assertThat(t.all(0, FAR_FUTURE, 10, 48, 1000)).hasSize(2);
    assertThat(t.reads).as("one read per month that holds images").isEqualTo(2);
  }
}
