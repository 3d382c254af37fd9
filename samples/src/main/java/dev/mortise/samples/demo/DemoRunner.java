package dev.mortise.samples.demo;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.samples.account.AccountStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The start-up demonstration (off with {@code sample.demo.enabled=false}): two replicas,
 * each with its own lock client on the configured backend, withdraw concurrently from the
 * same accounts without and then with the lock; then one replica pauses past its lease and
 * its stale write is refused by the storage. Prints a summary table and keeps it for
 * {@code GET /api/demo}.
 */
@Component
@Order(10)
public class DemoRunner implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(DemoRunner.class);

    private final DemoProperties settings;
    private final LockClients clients;
    private final AccountStore store;
    private final AtomicReference<DemoReport> last = new AtomicReference<>();

    public DemoRunner(DemoProperties settings, LockClients clients, AccountStore store) {
        this.settings = settings;
        this.clients = clients;
        this.store = store;
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        if (settings.enabled()) {
            DemoReport report = runDemo();
            log.info("\n{}Set sample.demo.enabled=false to skip this demonstration.", report.table());
        }
    }

    /**
     * Runs the demonstration now and returns its figures. Two instances starting together
     * take turns (the {@code sample:demo} lock): they share the demo accounts, and one's
     * withdrawals would spoil the other's count.
     */
    public DemoReport runDemo() throws Exception {
        LockLease turn = clients.getDefault().acquire(LockSpec.of("sample:demo").waitFor(Duration.ofMinutes(2)));
        try {
            return runDemoHoldingTurn();
        } finally {
            turn.close();
        }
    }

    private DemoReport runDemoHoldingTurn() throws Exception {
        List<Replica> replicas = replicas();
        List<String> accounts = new ArrayList<>();
        for (int i = 1; i <= settings.accounts(); i++) {
            accounts.add("demo-" + i);
            store.createIfMissing("demo-" + i, ContendedWithdrawals.INITIAL_BALANCE);
        }
        ContendedWithdrawals withdrawals = new ContendedWithdrawals(store, settings);
        DemoReport.RunFigures unlocked = withdrawals.run(replicas, accounts, false);
        DemoReport.RunFigures locked = withdrawals.run(replicas, accounts, true);
        log.info("Fencing: {} now takes each demo account with a {} lease and pauses {} (a long GC pause); "
                + "the 'was lost: EXPIRED' warnings that follow are that lease running out, as intended.",
                replicas.get(0).name(), settings.staleLease().toMillis() + " ms",
                settings.stalePause().toMillis() + " ms");
        StaleWriteScenario.Outcome stale = new StaleWriteScenario(store, settings)
                .run(replicas.get(0), replicas.get(1), accounts);
        String described = replicas.get(0).name() + " (client '" + replicas.get(0).clientName() + "') and "
                + replicas.get(1).name() + " (client '" + replicas.get(1).clientName() + "')";
        DemoReport report = new DemoReport(clients.getDefault().backendName(), described, accounts.size(),
                replicas.size() * settings.threadsPerReplica(), unlocked, locked, stale.attempted(),
                stale.rejected());
        last.set(report);
        return report;
    }

    /** The figures of the last run, if it ran. */
    public Optional<DemoReport> lastReport() {
        return Optional.ofNullable(last.get());
    }

    private List<Replica> replicas() {
        String first = clients.defaultName();
        String second = settings.secondReplicaBackend();
        if (second == null || !clients.contains(second) || second.equals(first)) {
            // Still two owners (threads) contending through the server, but queued locally in one client.
            log.warn("No lock backend named '{}' (sample.demo.second-replica-backend): both replicas share the "
                    + "default client. Declare mortise.lock.backends.{}.type=<backend> to give the second its own.",
                    second, second);
            second = first;
        }
        return List.of(new Replica("replica-a", first, clients.get(first)),
                new Replica("replica-b", second, clients.get(second)));
    }
}
