package dev.mortise.samples.lockservice;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** The JSON bodies of the lock-service HTTP API (seed 004), field names in snake_case. */
public final class LockApiMessages {

    private LockApiMessages() {
    }

    /** {@code POST /api/v1/locks/acquire}. Every field is required. */
    public record AcquireRequest(@JsonProperty("lock_key") String lockKey,
                                 @JsonProperty("client_id") String clientId,
                                 @JsonProperty("lease_time_ms") Long leaseTimeMs,
                                 @JsonProperty("block_time_ms") Long blockTimeMs) {
    }

    /** {@code POST /api/v1/locks/renew}: sets the lease to {@code lease_time_ms} from now. */
    public record RenewRequest(@JsonProperty("lock_key") String lockKey,
                               @JsonProperty("client_id") String clientId,
                               @JsonProperty("lease_id") String leaseId,
                               @JsonProperty("lease_time_ms") Long leaseTimeMs) {
    }

    /** {@code POST /api/v1/locks/release}. */
    public record ReleaseRequest(@JsonProperty("lock_key") String lockKey,
                                 @JsonProperty("client_id") String clientId,
                                 @JsonProperty("lease_id") String leaseId) {
    }

    /** The answer to an acquire: 200 with the grant, or 409 with {@code acquired=false} and an error. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record AcquireResponse(@JsonProperty("lock_key") String lockKey,
                                  @JsonProperty("client_id") String clientId,
                                  @JsonProperty("acquired") boolean acquired,
                                  @JsonProperty("fencing_token") Long fencingToken,
                                  @JsonProperty("lease_id") String leaseId,
                                  @JsonProperty("expires_at_epoch_ms") Long expiresAtEpochMs,
                                  @JsonProperty("error") String error) {
    }

    /** The answer to a renew (200). */
    public record RenewResponse(@JsonProperty("lock_key") String lockKey,
                                @JsonProperty("renewed") boolean renewed,
                                @JsonProperty("fencing_token") long fencingToken,
                                @JsonProperty("expires_at_epoch_ms") long expiresAtEpochMs) {
    }

    /** The answer to a release (200). */
    public record ReleaseResponse(@JsonProperty("lock_key") String lockKey,
                                  @JsonProperty("released") boolean released) {
    }

    /** Any refusal: 400, 403, 404, 503. */
    public record ErrorResponse(@JsonProperty("status") int status, @JsonProperty("error") String error) {
    }
}
