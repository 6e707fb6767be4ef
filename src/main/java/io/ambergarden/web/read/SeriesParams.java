package io.ambergarden.web.read;

import io.ambergarden.bus.SeriesQuery;
import io.ambergarden.web.ApiException;
import io.ambergarden.web.QueryParams;

/**
 * The series request's parameters, checked before anything is read: a missing or malformed one is a
 * 400 naming it, and so is a range holding more buckets of the step than query.series-max-points
 * (decided from the range and the step alone, so no read is wasted on an answer too big to give).
 */
final class SeriesParams {
  private SeriesParams() {}

  /**
   * @param oldest the start of the retention: a missing {@code from}, and the earliest one read
   * @param defaultTo {@code to} when missing (now plus the accepted future skew)
   */
  static SeriesQuery.Request of(
      String deviceId,
      String rawMetric,
      String rawFrom,
      String rawTo,
      String rawStep,
      long oldest,
      long defaultTo,
      int maxPoints) {
    if (rawMetric == null) {
      throw ApiException.invalidParameter("metric", "is required");
    }
    String metric = QueryParams.id("metric", rawMetric);
    SeriesStep step;
    try {
      step = SeriesStep.parse(rawStep);
    } catch (IllegalArgumentException e) {
      throw ApiException.invalidParameter("step", e.getMessage());
    }
    long from = Math.max(oldest, QueryParams.time("from", rawFrom, oldest));
    long to = QueryParams.time("to", rawTo, defaultTo);
    if (from >= to) {
      throw ApiException.invalidParameter("from", "must be before to (and within the retention)");
    }
    long points = step.bucketsIn(from, to);
    if (points > maxPoints) {
      throw ApiException.invalidParameter(
          "step",
          "the range holds "
              + points
              + " buckets of "
              + step.text()
              + ", more than the "
              + maxPoints
              + " points an answer may have (query.series-max-points): use a larger step or a"
              + " shorter range");
    }
    return new SeriesQuery.Request(deviceId, metric, from, to, step.millis());
  }
}
