package dev.mortise.samples.account;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/** Creates the example accounts (alice, bob, carol) on first start, so the endpoints have data. */
@Component
@Order(0)
public class AccountSeeder implements ApplicationRunner {

    private final AccountStore store;

    public AccountSeeder(AccountStore store) {
        this.store = store;
    }

    @Override
    public void run(ApplicationArguments args) {
        for (String id : new String[] {"alice", "bob", "carol"}) {
            store.createIfMissing(id, 10_000);
        }
    }
}
