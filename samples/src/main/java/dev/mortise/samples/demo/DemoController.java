package dev.mortise.samples.demo;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /api/demo}: the figures of the start-up demonstration (404 when it did not run). */
@RestController
public class DemoController {

    private final DemoRunner runner;

    public DemoController(DemoRunner runner) {
        this.runner = runner;
    }

    @GetMapping("/api/demo")
    public ResponseEntity<DemoReport> report() {
        return ResponseEntity.of(runner.lastReport());
    }
}
