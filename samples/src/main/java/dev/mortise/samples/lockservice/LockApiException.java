package dev.mortise.samples.lockservice;

import org.springframework.http.HttpStatus;

/** A refused lock-service request: the status to answer and a message saying what to fix. */
public class LockApiException extends RuntimeException {

    private final HttpStatus status;

    public LockApiException(HttpStatus status, String message) {
        super(message);
        this.status = status;
    }

    public HttpStatus status() {
        return status;
    }

    static LockApiException badRequest(String message) {
        return new LockApiException(HttpStatus.BAD_REQUEST, message);
    }

    static LockApiException forbidden(String message) {
        return new LockApiException(HttpStatus.FORBIDDEN, message);
    }
}
