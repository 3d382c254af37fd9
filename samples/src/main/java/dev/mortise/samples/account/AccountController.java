package dev.mortise.samples.account;

import dev.mortise.lock.LockTimeoutException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import dev.mortise.lock.fencing.StaleFencingTokenException;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The business endpoints: {@code /api/accounts} and {@code /api/transfers}. */
@RestController
@RequestMapping("/api")
public class AccountController {

    private final AccountService service;
    private final AccountStore store;

    public AccountController(AccountService service, AccountStore store) {
        this.service = service;
        this.store = store;
    }

    /** Body of a withdrawal or deposit. */
    public record AmountRequest(Long amount) {
    }

    /** Body of a transfer. */
    public record TransferRequest(String from, String to, Long amount) {
    }

    @GetMapping("/accounts")
    public List<Account> accounts() {
        return store.findAll();
    }

    @GetMapping("/accounts/{id}")
    public Account account(@PathVariable String id) {
        return store.find(id).orElseThrow(() -> AccountException.notFound(id));
    }

    @PostMapping("/accounts/{id}/withdraw")
    public Account withdraw(@PathVariable String id, @RequestBody AmountRequest request) {
        return service.withdraw(id, amount(request.amount()), 0L);
    }

    @PostMapping("/accounts/{id}/deposit")
    public Account deposit(@PathVariable String id, @RequestBody AmountRequest request) {
        return service.deposit(id, amount(request.amount()), 0L);
    }

    @PostMapping("/transfers")
    public Map<String, Account> transfer(@RequestBody TransferRequest request) {
        if (request.from() == null || request.to() == null) {
            throw new AccountException(HttpStatus.BAD_REQUEST, "A transfer needs \"from\", \"to\" and \"amount\".");
        }
        service.transfer(request.from(), request.to(), amount(request.amount()), Duration.ofSeconds(5));
        return Map.of("from", account(request.from()), "to", account(request.to()));
    }

    private static long amount(Long amount) {
        if (amount == null) {
            throw new AccountException(HttpStatus.BAD_REQUEST, "Give the \"amount\" (a positive whole number).");
        }
        return amount;
    }

    @ExceptionHandler(AccountException.class)
    ResponseEntity<Map<String, String>> refused(AccountException e) {
        return ResponseEntity.status(e.status()).body(Map.of("error", e.getMessage()));
    }

    /** The fence guard refused this instance's write: its lock ran out and another holder wrote. */
    @ExceptionHandler(StaleFencingTokenException.class)
    ResponseEntity<Map<String, String>> stale(StaleFencingTokenException e) {
        return refused(AccountException.staleToken(e.resource(), e.staleToken()));
    }

    @ExceptionHandler(LockTimeoutException.class)
    ResponseEntity<Map<String, String>> busy(LockTimeoutException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .body(Map.of("error", "The account is busy: " + e.getMessage() + " Retry later."));
    }
}
