package io.ambergarden.media;

import io.ambergarden.config.AmberConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.presigner.PresignedRequest;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The object store, through the AWS SDK v2 without its Netty client (built on Netty 4.1, while
 * Vert.x 5 runs 4.2): image bytes go through Vert.x's own HTTP client to URLs signed by {@link
 * S3Presigner} (signing needs no HTTP client), so they stream on the event loop with back pressure;
 * the few small control calls (bucket, list, delete) use the SDK's blocking URL-connection client
 * on worker threads. Path-style addressing and an endpoint override make any S3-compatible server
 * work.
 */
public final class ObjectStore implements AutoCloseable {
  /** A signed URL only has to be valid when the transfer starts. */
  private static final Duration URL_VALIDITY = Duration.ofMinutes(5);

  /** One listed blob. */
  public record Listed(String key, long size) {}

  /** One page of a listing; {@code truncated} when more keys follow the last one. */
  public record Listing(List<Listed> objects, boolean truncated) {}

  private final Vertx vertx;
  private final AmberConfig.Media cfg;
  private final S3Presigner presigner;
  private final S3Client control;
  private final boolean staticCredentials;

  public ObjectStore(Vertx vertx, AmberConfig.Media cfg) {
    this.vertx = vertx;
    this.cfg = cfg;
    this.staticCredentials = !cfg.s3AccessKey().isEmpty();
    AwsCredentialsProvider credentials =
        staticCredentials
            ? StaticCredentialsProvider.create(
                AwsBasicCredentials.create(cfg.s3AccessKey(), cfg.s3SecretKey()))
            : DefaultCredentialsProvider.builder().build();
    URI endpoint = URI.create(cfg.s3Endpoint());
    Region region = Region.of(cfg.s3Region());
    this.presigner =
        S3Presigner.builder()
            .endpointOverride(endpoint)
            .region(region)
            .credentialsProvider(credentials)
            .serviceConfiguration(
                S3Configuration.builder().pathStyleAccessEnabled(cfg.s3PathStyle()).build())
            .build();
    this.control =
        S3Client.builder()
            .endpointOverride(endpoint)
            .region(region)
            .credentialsProvider(credentials)
            .forcePathStyle(cfg.s3PathStyle())
            // S3-compatible servers differ in the newer checksum headers; send them only when an
            // operation requires them
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .httpClient(
                UrlConnectionHttpClient.builder()
                    .connectionTimeout(cfg.s3Timeout())
                    .socketTimeout(cfg.s3Timeout())
                    .build())
            .overrideConfiguration(o -> o.apiCallTimeout(cfg.s3Timeout().multipliedBy(3)))
            .build();
  }

  /** The request that stores {@code length} bytes of {@code contentType} under {@code key}. */
  public Future<RequestOptions> putRequest(String key, String contentType, long length) {
    return sign(
        () ->
            presigner.presignPutObject(
                p ->
                    p.signatureDuration(URL_VALIDITY)
                        .putObjectRequest(
                            r ->
                                r.bucket(cfg.s3Bucket())
                                    .key(key)
                                    .contentType(contentType)
                                    .contentLength(length))),
        HttpMethod.PUT);
  }

  /** The request that reads the blob under {@code key}. */
  public Future<RequestOptions> getRequest(String key) {
    return sign(
        () ->
            presigner.presignGetObject(
                p ->
                    p.signatureDuration(URL_VALIDITY)
                        .getObjectRequest(r -> r.bucket(cfg.s3Bucket()).key(key))),
        HttpMethod.GET);
  }

  private Future<RequestOptions> sign(Callable<PresignedRequest> presign, HttpMethod method) {
    // static keys sign in microseconds; the default chain may fetch credentials (blocking) first
    Future<PresignedRequest> signed;
    if (staticCredentials) {
      try {
        signed = Future.succeededFuture(presign.call());
      } catch (Exception e) {
        signed = Future.failedFuture(e);
      }
    } else {
      signed = vertx.executeBlocking(presign, false);
    }
    long timeout = cfg.s3Timeout().toMillis();
    return signed.map(
        p -> {
          // no idle timeout: Vert.x's counts only data received, and an upload receives nothing
          // until its end; the callers watch for stalls themselves
          RequestOptions o =
              new RequestOptions()
                  .setMethod(method)
                  .setAbsoluteURI(p.url())
                  .setConnectTimeout(timeout);
          p.signedHeaders()
              .forEach(
                  (name, values) -> {
                    if (!name.equalsIgnoreCase("host")) {
                      values.forEach(v -> o.putHeader(name, v));
                    }
                  });
          return o;
        });
  }

  /** Creates the bucket when it is missing. */
  public Future<Void> ensureBucket() {
    return blocking(
        () -> {
          try {
            control.headBucket(b -> b.bucket(cfg.s3Bucket()));
          } catch (NoSuchBucketException missing) {
            try {
              control.createBucket(b -> b.bucket(cfg.s3Bucket()));
            } catch (BucketAlreadyOwnedByYouException raced) {
              // another instance created it meanwhile
            }
          }
          return null;
        });
  }

  /** Up to {@code max} keys under {@code prefix} that sort after {@code startAfter}. */
  public Future<Listing> list(String prefix, String startAfter, int max) {
    return blocking(
        () -> {
          ListObjectsV2Response r =
              control.listObjectsV2(
                  b -> b.bucket(cfg.s3Bucket()).prefix(prefix).startAfter(startAfter).maxKeys(max));
          List<Listed> out = new ArrayList<>(r.contents().size());
          for (S3Object o : r.contents()) {
            out.add(new Listed(o.key(), o.size() == null ? -1 : o.size()));
          }
          return new Listing(out, Boolean.TRUE.equals(r.isTruncated()));
        });
  }

  /** Deletes the blob; deleting a missing blob succeeds (S3 semantics), so sweeps can repeat. */
  public Future<Void> delete(String key) {
    return blocking(
        () -> {
          control.deleteObject(b -> b.bucket(cfg.s3Bucket()).key(key));
          return null;
        });
  }

  /** Unordered, so a slow call does not hold up the others of the same verticle. */
  private <T> Future<T> blocking(Callable<T> call) {
    return vertx.executeBlocking(call, false);
  }

  @Override
  public void close() {
    presigner.close();
    control.close();
  }
}
