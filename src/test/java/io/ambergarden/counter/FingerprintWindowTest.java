package io.ambergarden.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FingerprintWindowTest {
  @Test
  void testRemembersWhatWasAddedAndNothingElse() {
    FingerprintWindow w = new FingerprintWindow(10);
    w.add(42);
    w.add(0); // zero is a legal fingerprint too
    assertThat(w.contains(42)).isTrue();
    assertThat(w.contains(0)).isTrue();
    assertThat(w.contains(43)).isFalse();
    w.add(42);
    assertThat(w.size()).isEqualTo(2);
  }

  @Test
  void testForgetsTheOldestOnceFull() {
    FingerprintWindow w = new FingerprintWindow(3);
    w.add(1);
    w.add(2);
    w.add(3);
    w.add(4);
    assertThat(w.size()).isEqualTo(3);
    assertThat(w.contains(1)).isFalse();
    assertThat(w.contains(2)).isTrue();
    assertThat(w.contains(4)).isTrue();
  }

  @Test
  void testAgreesWithAPlainSetOverAMillionRandomOperations() {
    Random rnd = new Random(7);
    int capacity = 1000;
    FingerprintWindow w = new FingerprintWindow(capacity);
    ArrayDeque<Long> order = new ArrayDeque<>();
    Set<Long> reference = new HashSet<>();
    for (int i = 0; i < 1_000_000; i++) {
      // a small key space, so collisions in the table, repeats and removals all happen often
      long fp = (1 + rnd.nextInt(5000)) * 0x10000L + rnd.nextInt(3);
      if (rnd.nextBoolean()) {
        assertThat(w.contains(fp)).isEqualTo(reference.contains(fp));
      } else if (!reference.contains(fp)) {
        w.add(fp);
        reference.add(fp);
        order.add(fp);
        if (order.size() > capacity) {
          reference.remove(order.poll());
        }
      }
    }
    assertThat(w.size()).isEqualTo(reference.size());
    for (long fp : reference) {
      assertThat(w.contains(fp)).isTrue();
    }
  }

  @Test
  void testRefusesAnEmptyWindow() {
    assertThatThrownBy(() -> new FingerprintWindow(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
