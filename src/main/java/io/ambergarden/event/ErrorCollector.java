package io.ambergarden.event;

import java.util.ArrayList;

/**
 * Collects the errors of one parse call, at most {@link EventParser#MAX_ERRORS} and then one note,
 * and remembers which event and top-level field are being read, so that an exception thrown by
 * Jackson can still be pinned to them. One per call; never shared between threads.
 *
 * <p>{@link ParseRun} extends this rather than holding one, so that a call allocates a single state
 * object, as before the split.
 */
class ErrorCollector {

  final ArrayList<FieldError> errors = new ArrayList<>();

  /** The index of the event being read; -1 between events. */
  int eventIndex = -1;

  /** The top-level field being read; null between fields. */
  String currentField;

  /** Past the error cap, further errors are dropped. */
  boolean capped;

  /** Adds an error; at the cap adds the note instead and unwinds with {@link CapReached}. */
  final void error(int index, String field, String message) {
    if (capped) {
      return;
    }
    if (errors.size() >= EventParser.MAX_ERRORS) {
      errors.add(new FieldError(-1, FieldError.DOCUMENT, EventParser.MSG_TOO_MANY_ERRORS));
      capped = true;
      throw CapReached.INSTANCE;
    }
    errors.add(new FieldError(index, field, message));
  }

  /** Sets the context to "between events". */
  final void betweenEvents() {
    eventIndex = -1;
    currentField = null;
  }

  /** Unwinds parsing once the error cap is reached; no stack trace, one shared instance. */
  static final class CapReached extends RuntimeException {
    static final CapReached INSTANCE = new CapReached();

    private CapReached() {
      super("error cap reached", null, false, false);
    }
  }
}
