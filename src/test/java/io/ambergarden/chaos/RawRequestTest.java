package io.ambergarden.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.chaos.history.Op;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RawRequestTest {
  static final List<ChaosEvent> BATCH =
      List.of(
          new ChaosEvent("d1", 1000, "c0", "normal", 200, 12.5),
          new ChaosEvent("d2", 1020, "c1", "fault", 500, 99.0));
  static final RawRequest REQ =
      RawRequest.of(new InetSocketAddress("127.0.0.1", 8080), "ak_1.secret", BATCH);

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void theHeadDeclaresTheBodyLengthAndCarriesTheKeyAndOneRequestPerConnection() {
    String head = text(REQ.head());
    assertThat(head)
        .startsWith("POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n")
        .contains("X-API-Key: ak_1.secret\r\n")
        .contains("Content-Length: " + REQ.body().length + "\r\n")
        .contains("Connection: close\r\n")
        .endsWith("\r\n\r\n");
    assertThat(text(REQ.body())).startsWith("[{").contains("\"eventId\":\"c1\"").endsWith("}]");
  }

  @Test
  void aHeadCutInTheKeyEndsInsideTheKeysValue() {
    assertThat(text(REQ.headCutInKey())).endsWith("X-API-Key: ak_1.");
  }

  @Test
  void halfABodyIsAPrefixShorterThanTheWhole() {
    byte[] half = REQ.halfBody();
    assertThat(half.length).isEqualTo(REQ.body().length / 2);
    assertThat(text(REQ.body())).startsWith(text(half));
  }

  @Test
  void chunksAreNearEqualAndAddUpToTheBody() throws IOException {
    List<byte[]> chunks = REQ.chunks(10);
    assertThat(chunks).hasSize(10);
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (byte[] c : chunks) {
      all.write(c);
      assertThat(c.length).isBetween(REQ.body().length / 10, REQ.body().length / 10 + 1);
    }
    assertThat(all.toByteArray()).isEqualTo(REQ.body());
    RawRequest tiny = new RawRequest(new byte[0], "[]".getBytes(StandardCharsets.UTF_8));
    assertThat(tiny.chunks(10)).hasSize(2);
  }

  @Test
  void aResendToAnotherAddressKeepsTheBodyAndNamesTheNewHost() {
    RawRequest other = REQ.to(new InetSocketAddress("127.0.0.1", 9090), "ak_1.secret");
    assertThat(other.body()).isSameAs(REQ.body());
    assertThat(text(other.head())).contains("Host: 127.0.0.1:9090\r\n");
  }

  @Test
  void onlyHttpStatusLinesGiveAStatus() {
    assertThat(RawRequest.status("HTTP/1.1 202 Accepted")).isEqualTo(202);
    assertThat(RawRequest.status("HTTP/1.0 503\r")).isEqualTo(503);
    assertThat(RawRequest.status("HTTP/2 200 OK")).isEqualTo(-1);
    assertThat(RawRequest.status("HTTP/1.1 20x OK")).isEqualTo(-1);
    assertThat(RawRequest.status("HTTP/1.1 999 What")).isEqualTo(-1);
    assertThat(RawRequest.status("garbage")).isEqualTo(-1);
  }

  @Test
  void anAnswerIsReadUpToItsStatusLineOrFoundMissing() throws IOException {
    byte[] answer = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n".getBytes();
    assertThat(RawExchange.readStatus(new ByteArrayInputStream(answer), -2)).isEqualTo("408");
    ByteArrayInputStream rest = new ByteArrayInputStream(answer, 1, answer.length - 1);
    assertThat(RawExchange.readStatus(rest, 'H')).isEqualTo("408");
    assertThat(RawExchange.readStatus(new ByteArrayInputStream(new byte[0]), -2))
        .isEqualTo("closed");
    assertThat(RawExchange.readStatus(new ByteArrayInputStream("SSH-2.0\r\n".getBytes()), -2))
        .isEqualTo("bad status");
  }

  @Test
  void nothingSentOrAnUnparsableBodyFailsAWholeBodyUnansweredIsUnknownAndAnAnswerDecides() {
    assertThat(ClientFaults.type(ClientFaults.Variant.WHOLE_BODY_THEN_CLOSE, "refused", false))
        .isEqualTo(Op.Type.FAIL);
    assertThat(ClientFaults.type(ClientFaults.Variant.HEADERS_THEN_CLOSE, "cut", true))
        .isEqualTo(Op.Type.FAIL);
    assertThat(ClientFaults.type(ClientFaults.Variant.HALF_BODY_THEN_RESET, "reset", true))
        .isEqualTo(Op.Type.FAIL);
    assertThat(ClientFaults.type(ClientFaults.Variant.WHOLE_BODY_THEN_RESET, "cut", true))
        .isEqualTo(Op.Type.INFO);
    assertThat(ClientFaults.answerType("202")).isEqualTo(Op.Type.OK);
    assertThat(ClientFaults.answerType("408")).isEqualTo(Op.Type.FAIL);
    assertThat(ClientFaults.answerType("503")).isEqualTo(Op.Type.INFO);
    assertThat(ClientFaults.answerType("timeout")).isEqualTo(Op.Type.INFO);
    assertThat(ClientFaults.answerType("closed")).isEqualTo(Op.Type.INFO);
    assertThat(ClientFaults.answerType("cut by server, then 408")).isEqualTo(Op.Type.INFO);
  }
}
