package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The port a child process chose is read from the line AmberGarden logs once HTTP listens. */
class ServiceProcessTest {
  @Test
  void thePortIsTheOneInTheUpLineInTextAndJsonLogs() {
    assertThat(
            ServiceProcess.upPort(
                "22:40:01.100 INFO  [main] i.a.AmberGarden  - configuration ... http.port=0\n"
                    + "22:40:09.250 INFO  [vert.x-eventloop-thread-0] i.a.AmberGarden  - Amber"
                    + " Garden is up on http://127.0.0.1:41234 (ingest mode KAFKA)\n"))
        .isEqualTo(41234);
    assertThat(
            ServiceProcess.upPort(
                "{\"level\":\"INFO\",\"message\":\"Amber Garden is up on http://[::1]:8081 (ingest"
                    + " mode DIRECT)\"}\n"))
        .isEqualTo(8081);
  }

  @Test
  void beforeTheLineThereIsNoPort() {
    assertThat(ServiceProcess.upPort("")).isEqualTo(-1);
    assertThat(ServiceProcess.upPort("22:40:01.100 INFO x - Amber Garden is up on http://127.0"))
        .isEqualTo(-1);
  }
}
