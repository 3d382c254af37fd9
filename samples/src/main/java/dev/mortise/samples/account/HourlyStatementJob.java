package dev.mortise.samples.account;

import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.OnBusy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The hourly statement: every instance's scheduler fires at the top of the hour, and only the
 * one that gets the lock runs it; the others skip at once ({@code onBusy = SKIP}).
 * {@code holdAtLeast} keeps the lock for a while after a fast run, so an instance whose clock
 * is a few seconds late does not run it a second time.
 */
@Component
public class HourlyStatementJob {

    private static final Logger log = LoggerFactory.getLogger(HourlyStatementJob.class);

    private final AccountStore store;
    private final AtomicInteger runs = new AtomicInteger();

    public HourlyStatementJob(AccountStore store) {
        this.store = store;
    }

    @Scheduled(cron = "${sample.statement.cron:0 0 * * * *}")
    @DistributedLock(key = "'hourly-statement'", name = "hourly-statement", onBusy = OnBusy.SKIP,
            holdAtLeast = "${sample.statement.hold-at-least:30s}")
    public void run() {
        List<Account> accounts = store.findAll();
        long total = accounts.stream().mapToLong(Account::balance).sum();
        runs.incrementAndGet();
        log.info("Hourly statement: {} accounts, total balance {}", accounts.size(), total);
    }

    /** How many times this instance ran the statement (it skips when another instance has it). */
    public int runs() {
        return runs.get();
    }
}
