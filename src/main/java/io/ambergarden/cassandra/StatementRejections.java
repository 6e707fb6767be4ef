package io.ambergarden.cassandra;

import com.datastax.oss.driver.api.core.servererrors.InvalidConfigurationInQueryException;
import com.datastax.oss.driver.api.core.servererrors.QueryValidationException;
import com.datastax.oss.driver.api.core.servererrors.UnauthorizedException;

/**
 * Whether Cassandra refused a statement for what it holds (a value or mutation too large, an
 * invalid value), so sending the same statement again can never succeed and its records may be
 * given up on. Refusals that say nothing about the statement's data are left out: a missing grant
 * or table (fixed by an operator), and an authorisation the coordinator could not check because its
 * own read of system_auth failed ("Unable to perform authorization of permissions", seen with a
 * node whose clock was skewed). Those hit every record alike, so they are outages to wait out,
 * never a reason to dead-letter a valid record.
 */
public final class StatementRejections {
  private StatementRejections() {}

  public static boolean rejected(Throwable error) {
    // the grant and table refusals are QueryValidationExceptions too
    QueryValidationException refusal = Causes.find(error, QueryValidationException.class);
    return refusal != null
        && !(refusal instanceof UnauthorizedException)
        && !(refusal instanceof InvalidConfigurationInQueryException);
  }
}
