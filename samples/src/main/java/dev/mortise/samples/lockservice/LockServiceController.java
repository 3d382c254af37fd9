package dev.mortise.samples.lockservice;

import dev.mortise.samples.lockservice.LockApiMessages.AcquireRequest;
import dev.mortise.samples.lockservice.LockApiMessages.AcquireResponse;
import dev.mortise.samples.lockservice.LockApiMessages.ReleaseRequest;
import dev.mortise.samples.lockservice.LockApiMessages.ReleaseResponse;
import dev.mortise.samples.lockservice.LockApiMessages.RenewRequest;
import dev.mortise.samples.lockservice.LockApiMessages.RenewResponse;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The lock-service HTTP API of seed 004, for services in other languages:
 * {@code POST /api/v1/locks/acquire}, {@code /renew} and {@code /release}, JSON in and out.
 */
@RestController
@RequestMapping(path = "/api/v1/locks", consumes = "application/json", produces = "application/json")
public class LockServiceController {

    private final LockService service;

    public LockServiceController(LockService service) {
        this.service = service;
    }

    @PostMapping("/acquire")
    public ResponseEntity<AcquireResponse> acquire(@RequestBody AcquireRequest request) {
        AcquireResponse response = service.acquire(request);
        return ResponseEntity.status(response.acquired() ? HttpStatus.OK : HttpStatus.CONFLICT).body(response);
    }

    @PostMapping("/renew")
    public RenewResponse renew(@RequestBody RenewRequest request) {
        return service.renew(request);
    }

    @PostMapping("/release")
    public ReleaseResponse release(@RequestBody ReleaseRequest request) {
        return service.release(request);
    }
}
