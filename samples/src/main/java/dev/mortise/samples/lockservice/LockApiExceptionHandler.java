package dev.mortise.samples.lockservice;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.samples.lockservice.LockApiMessages.ErrorResponse;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** Turns the lock API's refusals into JSON errors with a status and a message saying what to fix. */
@RestControllerAdvice(assignableTypes = LockServiceController.class)
public class LockApiExceptionHandler {

    @ExceptionHandler(LockApiException.class)
    ResponseEntity<ErrorResponse> refused(LockApiException e) {
        return error(e.status(), e.getMessage());
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<ErrorResponse> unreadable(HttpMessageNotReadableException e) {
        return error(HttpStatus.BAD_REQUEST, "The body is not a valid JSON object of this request ("
                + firstLine(e.getMostSpecificCause().getMessage()) + "). Send e.g. {\"lock_key\": \"order:42\", "
                + "\"client_id\": \"billing-7\", \"lease_time_ms\": 10000, \"block_time_ms\": 2000}.");
    }

    @ExceptionHandler({LockBackendException.class, LockInterruptedException.class})
    ResponseEntity<ErrorResponse> unavailable(RuntimeException e) {
        return error(HttpStatus.SERVICE_UNAVAILABLE, "The lock backend could not answer: " + e.getMessage()
                + " Retry later.");
    }

    private static ResponseEntity<ErrorResponse> error(HttpStatus status, String message) {
        return ResponseEntity.status(status).body(new ErrorResponse(status.value(), message));
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "no details";
        }
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end);
    }
}
