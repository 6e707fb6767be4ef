package io.ambergarden.media;

import io.ambergarden.bus.ImageMeta;
import io.ambergarden.bus.PagePosition;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Plans and assembles one newest-first page over month partitions, without doing any I/O: the
 * caller asks {@link #next()} what to read, reads it, and hands the rows to {@link #accept}.
 *
 * <p>The months come from the month index (newest first, only months that hold images), so empty
 * months are never probed. Within a month it is keyset paging on (createdAt, imageId): each read
 * asks for the rows strictly before the last one seen, never an offset. Deleted images are skipped
 * (they stay in the index: a soft delete writes a status, not a tombstone), so a page may need more
 * than one read of a month; reads per page are bounded by {@code maxPartitions} months and {@code
 * maxScanned} rows, and a page cut short by a bound still carries a cursor to go on.
 */
public final class PageWalk {
  /**
   * Read at most {@code limit} rows of {@code month} strictly before ({@code before}, {@code
   * beforeId}); {@code beforeId} null means createdAt &lt; {@code before}.
   */
  public record Read(int month, long before, UUID beforeId, int limit) {}

  private final List<Integer> months;
  private final long from;
  private final long to;
  private final int limit;
  private final int maxPartitions;
  private final int maxScanned;
  private final List<ImageMeta> items = new ArrayList<>();
  private int monthIndex;
  private long before;
  private UUID beforeId;
  private boolean freshMonth = true;
  private int partitionsRead;
  private int scanned;
  private int requested;
  private boolean finished;
  private PagePosition next;

  /**
   * @param months the index's months, newest first: those at or below the cursor's month (or the
   *     month of {@code to}) and at or above the month of {@code from}, at most maxPartitions + 1
   * @param position the cursor's position, or null for the first page
   */
  public PageWalk(
      List<Integer> months,
      long from,
      long to,
      int limit,
      int maxPartitions,
      int maxScanned,
      PagePosition position) {
    this.months = List.copyOf(months);
    this.from = from;
    this.to = to;
    this.limit = limit;
    this.maxPartitions = maxPartitions;
    this.maxScanned = maxScanned;
    this.before = to;
    if (position != null
        && !position.atBucketStart()
        && !this.months.isEmpty()
        && this.months.get(0) == position.bucket()) {
      before = Math.min(position.ts(), to);
      beforeId = position.ts() < to ? UUID.fromString(position.key1()) : null;
    }
  }

  /** The next read, or null when the page is complete. */
  public Read next() {
    if (finished) {
      return null;
    }
    if (items.size() >= limit || monthIndex >= months.size()) {
      return finish(items.size() >= limit);
    }
    if (freshMonth && partitionsRead >= maxPartitions) {
      return finish(true);
    }
    if (scanned >= maxScanned) {
      return finish(true);
    }
    if (freshMonth) {
      partitionsRead++;
      freshMonth = false;
    }
    requested = limit - items.size();
    return new Read(months.get(monthIndex), before, beforeId, requested);
  }

  /** The rows the last {@link Read} returned, in the table's order (newest first). */
  public void accept(List<ImageMeta> rows) {
    scanned += rows.size();
    ImageMeta last = null;
    for (ImageMeta row : rows) {
      if (row.createdAt() < from) {
        // older months are older still: the page, and the whole listing, ends here
        finished = true;
        next = null;
        return;
      }
      last = row;
      if (!row.deleted()) {
        items.add(row);
      }
    }
    if (rows.size() < requested) {
      monthIndex++;
      before = to;
      beforeId = null;
      freshMonth = true;
    } else if (last != null) {
      before = last.createdAt();
      beforeId = last.imageId();
    }
  }

  public List<ImageMeta> items() {
    return List.copyOf(items);
  }

  /** Where the next page starts; null when this page reached the end. Valid once done. */
  public PagePosition nextPosition() {
    return next;
  }

  private Read finish(boolean more) {
    finished = true;
    if (!more || monthIndex >= months.size()) {
      next = null;
    } else if (beforeId == null && before == to) {
      next = PagePosition.bucketStart(months.get(monthIndex));
    } else {
      next = new PagePosition(months.get(monthIndex), before, beforeId.toString(), "");
    }
    return null;
  }
}
