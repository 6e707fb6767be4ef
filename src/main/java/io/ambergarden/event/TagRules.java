package io.ambergarden.event;

import static io.ambergarden.event.EventParser.MSG_DUPLICATE;
import static io.ambergarden.event.EventParser.MSG_STRING;
import static io.ambergarden.event.EventParser.MSG_TAGS_TYPE;
import static io.ambergarden.event.FieldPaths.path;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.LinkedHashMap;

/**
 * The {@code tags} object, collected in document order into {@code run.tags}: names follow the id
 * charset, values are short text without control characters or unpaired surrogates, a name may
 * appear once, and the count is capped (reported once per event).
 */
final class TagRules {

  private final EventLimits limits;
  private final String msgTooManyTags;

  TagRules(EventLimits limits) {
    this.limits = limits;
    this.msgTooManyTags = "too many tags: at most " + limits.maxTags();
  }

  /** The {@code tags} field; null means no tags. */
  void readObject(JsonParser p, JsonToken t, int idx, ParseRun run) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return;
    }
    if (t != JsonToken.START_OBJECT) {
      run.error(idx, "tags", MSG_TAGS_TYPE);
      p.skipChildren();
      return;
    }
    String name;
    while ((name = p.nextFieldName()) != null) {
      JsonToken vt = p.nextToken();
      String nameProblem = FieldRules.checkId(name, limits.maxTagKeyLength(), "tag names must be ");
      if (nameProblem != null) {
        run.error(idx, path("tags.", name), nameProblem);
        p.skipChildren();
        continue;
      }
      if (vt != JsonToken.VALUE_STRING) {
        run.error(idx, path("tags.", name), MSG_STRING);
        p.skipChildren();
        continue;
      }
      String v = p.getText();
      String valueProblem = checkValue(v);
      if (valueProblem != null) {
        run.error(idx, path("tags.", name), valueProblem);
        continue;
      }
      LinkedHashMap<String, String> m = run.tags;
      if (m == null) {
        m = new LinkedHashMap<>();
        run.tags = m;
      } else if (m.containsKey(name)) {
        run.error(idx, path("tags.", name), MSG_DUPLICATE);
        continue;
      }
      if (m.size() >= limits.maxTags()) {
        if (!run.tagsOverflow) {
          run.tagsOverflow = true;
          run.error(idx, "tags", msgTooManyTags);
        }
        continue;
      }
      m.put(name, v);
    }
  }

  /** Null when the value is acceptable, else the message. */
  String checkValue(String v) {
    int n = v.length();
    if (n == 0 || n > limits.maxTagValueLength()) {
      return "must be 1-" + limits.maxTagValueLength() + " characters (got " + n + ")";
    }
    for (int i = 0; i < n; i++) {
      char c = v.charAt(i);
      if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
        return "must not contain control characters ("
            + FieldRules.describe(v, i)
            + " at position "
            + i
            + ")";
      }
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < n
            && Character.isLowSurrogate(v.charAt(i + 1))) {
          i++;
        } else {
          return "contains an unpaired surrogate at position " + i;
        }
      }
    }
    return null;
  }
}
