package io.ambergarden.auth;

import io.vertx.core.json.JsonObject;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Signs test JWTs by hand, so tokens the library would never make (alg=none...) can be made. */
public final class TestJwts {
  public static final String ISSUER = "https://id.example.test";
  public static final String AUDIENCE = "amber-garden";

  private TestJwts() {}

  public static KeyPair rsa() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return g.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public static KeyPair ec() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(256);
      return g.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public static String publicPem(KeyPair kp) {
    return "-----BEGIN PUBLIC KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(kp.getPublic().getEncoded())
        + "\n-----END PUBLIC KEY-----\n";
  }

  public static Path writePublicPem(KeyPair kp, Path dir) {
    try {
      Path f = Files.createTempFile(dir, "jwt-", ".pem");
      Files.writeString(f, publicPem(kp));
      return f;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Claims valid for an hour from now, with the test issuer and audience. */
  public static JsonObject claims(String sub, String scope) {
    long now = System.currentTimeMillis() / 1000;
    return new JsonObject()
        .put("iss", ISSUER)
        .put("aud", AUDIENCE)
        .put("sub", sub)
        .put("scope", scope)
        .put("iat", now)
        .put("exp", now + 3600);
  }

  public static String rs256(PrivateKey key, JsonObject claims, String kid) {
    JsonObject header = new JsonObject().put("alg", "RS256").put("typ", "JWT");
    if (kid != null) {
      header.put("kid", kid);
    }
    String input = b64(header.encode()) + "." + b64(claims.encode());
    return input + "." + b64(sign("SHA256withRSA", key, input));
  }

  public static String es256(PrivateKey key, JsonObject claims) {
    String input =
        b64(new JsonObject().put("alg", "ES256").put("typ", "JWT").encode())
            + "."
            + b64(claims.encode());
    // JWS wants the raw r||s form, the JDK gives DER: P1363 format gives the raw form directly
    return input + "." + b64(sign("SHA256withECDSAinP1363Format", key, input));
  }

  public static String none(JsonObject claims) {
    return b64(new JsonObject().put("alg", "none").put("typ", "JWT").encode())
        + "."
        + b64(claims.encode())
        + ".";
  }

  /** The classic confusion attack: HS256 with the server's public key as the HMAC secret. */
  public static String hs256WithPublicKey(KeyPair kp, JsonObject claims) {
    try {
      String input =
          b64(new JsonObject().put("alg", "HS256").put("typ", "JWT").encode())
              + "."
              + b64(claims.encode());
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(publicPem(kp).getBytes(StandardCharsets.US_ASCII), "HmacSHA256"));
      return input + "." + b64(mac.doFinal(input.getBytes(StandardCharsets.US_ASCII)));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A JWK of an RSA public key. */
  public static JsonObject jwk(KeyPair kp, String kid) {
    RSAPublicKey k = (RSAPublicKey) kp.getPublic();
    return new JsonObject()
        .put("kty", "RSA")
        .put("kid", kid)
        .put("alg", "RS256")
        .put("use", "sig")
        .put("n", b64(unsigned(k.getModulus())))
        .put("e", b64(unsigned(k.getPublicExponent())));
  }

  private static byte[] unsigned(BigInteger v) {
    byte[] b = v.toByteArray();
    return b[0] == 0 ? java.util.Arrays.copyOfRange(b, 1, b.length) : b;
  }

  private static byte[] sign(String alg, PrivateKey key, String input) {
    try {
      Signature s = Signature.getInstance(alg);
      s.initSign(key);
      s.update(input.getBytes(StandardCharsets.US_ASCII));
      return s.sign();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String b64(String s) {
    return b64(s.getBytes(StandardCharsets.UTF_8));
  }

  static String b64(byte[] b) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
