package io.ambergarden.bus;

import java.util.List;

/**
 * Count facts read from the count journal, to be applied to the counters. The reply (the number of
 * facts) comes once every increment is written. A failure means some may have been applied and
 * others not; the caller sends the request again. {@code part} names what the facts are (a due
 * journal bucket's chunk, which never changes): sent again under the same part, only what did not
 * succeed is applied, and nothing once all did. Null: no such memory, the facts are applied whole.
 */
public record CountRequest(String part, List<CountFacts.Fact> facts) {
  public CountRequest {
    facts = List.copyOf(facts);
  }
}
