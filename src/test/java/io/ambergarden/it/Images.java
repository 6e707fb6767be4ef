package io.ambergarden.it;

import io.ambergarden.localrt.RealServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/** Test images and a direct view of the object store, for the image ITs. */
final class Images {
  static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  static final byte[] JPEG_MAGIC = {(byte) 0xff, (byte) 0xd8, (byte) 0xff, (byte) 0xe0};
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private Images() {}

  /** {@code size} bytes that start like a PNG, the rest pseudo-random from {@code seed}. */
  static byte[] png(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    System.arraycopy(PNG_MAGIC, 0, b, 0, PNG_MAGIC.length);
    return b;
  }

  static byte[] jpeg(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    System.arraycopy(JPEG_MAGIC, 0, b, 0, JPEG_MAGIC.length);
    return b;
  }

  static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static HttpResponse<String> upload(
      TestService s, String device, String query, String type, byte[] body) {
    return TestService.send(
        HttpRequest.newBuilder(s.uri("/api/v1/devices/" + device + "/images" + query))
            .header("Content-Type", type)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build());
  }

  /** GET with the harness's admin key. */
  static HttpResponse<byte[]> bytes(URI uri) {
    return bytesAs(
        HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + TestKeys.admin()).GET());
  }

  /** GET without any credentials (a share link is its own credential). */
  static HttpResponse<byte[]> bytesWithoutCredentials(URI uri) {
    return bytesAs(HttpRequest.newBuilder(uri).GET());
  }

  private static HttpResponse<byte[]> bytesAs(HttpRequest.Builder request) {
    try {
      return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static HttpResponse<String> delete(TestService s, String path) {
    return TestService.send(HttpRequest.newBuilder(s.uri(path)).DELETE().build());
  }

  /** A direct client of the test object store, as an operator would use it. */
  static S3Client s3() {
    Map<String, String> cfg = RealServers.objectStoreConfig();
    return S3Client.builder()
        .endpointOverride(URI.create(cfg.get("media.s3.endpoint")))
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(
                    cfg.get("media.s3.access-key"), cfg.get("media.s3.secret-key"))))
        .httpClient(UrlConnectionHttpClient.create())
        .build();
  }

  static boolean exists(S3Client s3, String bucket, String key) {
    try {
      s3.headObject(b -> b.bucket(bucket).key(key));
      return true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  static void put(S3Client s3, String bucket, String key, byte[] body) {
    s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(body));
  }

  /**
   * A body of {@code size} bytes generated on the fly (never held whole: the uploads of the heap
   * test must not fill the test JVM's heap themselves), starting like a PNG; its SHA-256 is known
   * once it was sent.
   */
  static final class GeneratedBody implements Flow.Publisher<ByteBuffer> {
    private static final int CHUNK = 64 * 1024;
    final long size;
    private final long seed;
    private final MessageDigest digest;
    private final AtomicLong progress;
    private volatile String sha256;

    /** {@code progress} counts the bytes handed to the client, over all bodies sharing it. */
    GeneratedBody(long size, long seed, AtomicLong progress) {
      this.size = size;
      this.seed = seed;
      this.progress = progress;
      try {
        this.digest = MessageDigest.getInstance("SHA-256");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    String sha256() {
      return sha256;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> s) {
      Random random = new Random(seed);
      AtomicBoolean done = new AtomicBoolean();
      long[] sent = {0};
      s.onSubscribe(
          new Flow.Subscription() {
            @Override
            public synchronized void request(long n) {
              for (long i = 0; i < n && !done.get(); i++) {
                int len = (int) Math.min(CHUNK, size - sent[0]);
                byte[] chunk = new byte[len];
                random.nextBytes(chunk);
                if (sent[0] == 0) {
                  System.arraycopy(PNG_MAGIC, 0, chunk, 0, PNG_MAGIC.length);
                }
                digest.update(chunk);
                sent[0] += len;
                progress.addAndGet(len);
                s.onNext(ByteBuffer.wrap(chunk));
                if (sent[0] >= size) {
                  done.set(true);
                  sha256 = HexFormat.of().formatHex(digest.digest());
                  s.onComplete();
                }
              }
            }

            @Override
            public void cancel() {
              done.set(true);
            }
          });
    }
  }
}
