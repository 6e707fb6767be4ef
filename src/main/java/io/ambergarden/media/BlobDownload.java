package io.ambergarden.media;

import io.ambergarden.bus.ImageMeta;
import io.ambergarden.media.BlobTransferException.Reason;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerResponse;

/**
 * Streams a stored image from the object store to an HTTP response with back pressure (Vert.x's
 * pipe): the image is never held whole. The answer carries the stored content type, the SHA-256 as
 * a strong ETag, and headers that stop browsers from sniffing or running uploaded content.
 */
public final class BlobDownload {
  private BlobDownload() {}

  /** The ETag of an image: its SHA-256, quoted. */
  public static String etag(ImageMeta image) {
    return "\"" + image.sha256() + "\"";
  }

  /**
   * Sends {@code image}'s bytes as a 200. Fails with a {@link BlobTransferException} before
   * anything is written when the store cannot serve it; a failure mid-way resets the response.
   */
  public static Future<Void> send(
      Vertx vertx,
      HttpClient client,
      ObjectStore store,
      ImageMeta image,
      HttpServerResponse response,
      String cacheControl,
      long headTimeoutMillis) {
    return store
        .getRequest(image.objectKey())
        .compose(client::request)
        .compose(
            r -> {
              // a bound on the answer's head only: once bytes flow, a slow client may pause them
              // as long as it likes (Vert.x's idle timeout would count that as idle)
              long timer =
                  vertx.setTimer(
                      headTimeoutMillis,
                      id ->
                          r.reset(
                              0, new java.util.concurrent.TimeoutException("no answer in time")));
              return r.send().onComplete(ar -> vertx.cancelTimer(timer));
            })
        .recover(
            e ->
                Future.failedFuture(
                    new BlobTransferException(
                        Reason.STORE_UNAVAILABLE, "object store unreachable: " + e)))
        .compose(s3 -> relay(s3, image, response, cacheControl));
  }

  private static Future<Void> relay(
      HttpClientResponse s3, ImageMeta image, HttpServerResponse response, String cacheControl) {
    if (s3.statusCode() != 200) {
      Reason reason =
          s3.statusCode() == 404
              ? Reason.MISSING
              : s3.statusCode() >= 500 ? Reason.STORE_UNAVAILABLE : Reason.STORE_REFUSED;
      // drain the small error body so the connection can be reused
      return s3.body()
          .transform(
              ar ->
                  Future.failedFuture(
                      new BlobTransferException(
                          reason,
                          "object store answered "
                              + s3.statusCode()
                              + " for "
                              + image.objectKey())));
    }
    response
        .setStatusCode(200)
        .putHeader("Content-Type", image.contentType())
        .putHeader("ETag", etag(image))
        .putHeader("Cache-Control", cacheControl)
        .putHeader("X-Content-Type-Options", "nosniff")
        .putHeader("Content-Security-Policy", "default-src 'none'; sandbox");
    String length = s3.getHeader("Content-Length");
    if (length != null) {
      response.putHeader("Content-Length", length);
    }
    return s3.pipeTo(response)
        .onFailure(
            e -> {
              // the client went away, or the store mid-way: close both ends
              s3.request().reset();
              if (!response.ended()) {
                response.reset();
              }
            });
  }
}
