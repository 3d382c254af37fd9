package dev.mortise.samples.account;

import dev.mortise.lock.spring.LeaderOnly;
import dev.mortise.lock.spring.Leaderships;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The reconciliation: every instance schedules it, and only the leader of the
 * {@code reconciliation} group runs it ({@code mortise.lock.leadership.reconciliation.enabled=true}
 * in application.properties). Unlike the hourly statement, nobody takes a lock per run: the group
 * elects one leader, which keeps the role until it stops or loses its lease, and the others skip
 * at once. See it in {@code /actuator/locks} ("leadership": state and epoch), {@code /actuator/health}
 * ("leadership") and {@code /actuator/metrics/mortise.leadership.leader}; the log says which epoch
 * each run belongs to.
 */
@Component
public class ReconciliationJob {

    private static final Logger log = LoggerFactory.getLogger(ReconciliationJob.class);

    private final AccountStore store;
    private final Leaderships leaderships;
    private final AtomicInteger runs = new AtomicInteger();

    public ReconciliationJob(AccountStore store, Leaderships leaderships) {
        this.store = store;
        this.leaderships = leaderships;
    }

    @Scheduled(fixedDelayString = "${sample.reconciliation.every:30s}", initialDelayString = "${sample.reconciliation.every:30s}")
    @LeaderOnly("reconciliation")
    public void run() {
        List<Account> accounts = store.findAll();
        long negative = accounts.stream().filter(account -> account.balance() < 0).count();
        int run = runs.incrementAndGet();
        log.info("Reconciliation run {} as leader (epoch {}): {} accounts, {} negative", run,
                leaderships.get("reconciliation").epoch().orElse(-1), accounts.size(), negative);
    }

    /** How many times this instance ran it (0 on instances that never led). */
    public int runs() {
        return runs.get();
    }
}
