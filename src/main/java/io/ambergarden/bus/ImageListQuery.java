package io.ambergarden.bus;

import java.util.List;

/**
 * The images of a device or of a tag with createdAt in [from, to), newest first, by keyset paging
 * over the month partitions that hold any (read from the month index, so empty months are never
 * probed). Replied to with a {@link Page}. In a {@link PagePosition}, {@code bucket} is the month
 * (yyyymm), {@code ts} the createdAt and {@code key1} the image id of the last row read.
 */
public final class ImageListQuery {
  public static final Endpoint<Request, Page> ENDPOINT =
      new Endpoint<>("amber.media.list", Request.class, Page.class);

  public enum Scope {
    DEVICE,
    TAG
  }

  /** {@code position} is null for the first page. */
  public record Request(
      Scope scope, String key, long from, long to, int limit, PagePosition position) {}

  /** Newest first; {@code next} is null on the last page. */
  public record Page(List<ImageMeta> items, PagePosition next) {
    public Page {
      items = List.copyOf(items);
    }
  }

  private ImageListQuery() {}
}
