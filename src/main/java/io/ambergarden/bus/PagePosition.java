package io.ambergarden.bus;

/**
 * Where a paged read resumes: the bucket, and the clustering keys of the last row served ({@code
 * ts}, then two tie-break keys). {@code ts == Long.MAX_VALUE} means "from the start of the bucket".
 * The HTTP layer hands it to clients only inside a signed cursor.
 */
public record PagePosition(long bucket, long ts, String key1, String key2) {
  public boolean atBucketStart() {
    return ts == Long.MAX_VALUE;
  }

  public static PagePosition bucketStart(long bucket) {
    return new PagePosition(bucket, Long.MAX_VALUE, "", "");
  }
}
