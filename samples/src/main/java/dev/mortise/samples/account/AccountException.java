package dev.mortise.samples.account;

import org.springframework.http.HttpStatus;

/** A business rule refused the operation; carries the HTTP status to answer with. */
public class AccountException extends RuntimeException {

    private final HttpStatus status;

    public AccountException(HttpStatus status, String message) {
        super(message);
        this.status = status;
    }

    public HttpStatus status() {
        return status;
    }

    static AccountException notFound(String id) {
        return new AccountException(HttpStatus.NOT_FOUND, "No account '" + id + "'; GET /api/accounts lists them.");
    }

    static AccountException insufficientFunds(String id, long balance, long amount) {
        return new AccountException(HttpStatus.CONFLICT, "Account '" + id + "' holds " + balance
                + " and cannot pay " + amount + ".");
    }

    static AccountException staleToken(String id, long token) {
        return new AccountException(HttpStatus.CONFLICT, "The write to account '" + id + "' with fencing token "
                + token + " was refused: a later lock holder has written it (this instance's lock expired). "
                + "Nothing was changed; retry the operation. If every write is refused, the lock server lost its "
                + "state (e.g. a Redis without persistence restarted) and its tokens started again below the ones "
                + "this table has seen: delete the sample's data directory (sample.data-dir) to start afresh.");
    }
}
