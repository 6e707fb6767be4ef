package io.ambergarden.bus;

import java.util.List;

/**
 * Count facts read from the count journal, to be applied to the counters. The reply (the number of
 * facts) comes once every increment is written; a failure means some may have been applied and
 * others not, and the caller applies the whole request again (counters are reconciled per hour).
 */
public record CountRequest(List<CountFacts.Fact> facts) {
  public CountRequest {
    facts = List.copyOf(facts);
  }
}
