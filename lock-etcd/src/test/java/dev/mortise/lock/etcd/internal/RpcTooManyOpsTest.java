package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.tck.server.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link EtcdErrors#isTooManyOps} recognizes etcd's own refusal of a transaction larger than its
 * {@code --max-txn-ops} (128 on the test server), as jetcd reports it, and nothing else: the
 * batch acquire relies on it to fall back to the ordered path on a cluster with a lower limit.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RpcTooManyOpsTest {

    @Test
    void etcdsRefusalOfAnOversizedTransactionIsRecognized() {
        try (EtcdServer server = new EtcdServer()) {
            server.start();
            try (Client client = Client.builder().endpoints(server.endpoint()).build()) {
                Rpc rpc = new Rpc(Duration.ofSeconds(5));
                Op[] puts = new Op[129];
                for (int i = 0; i < puts.length; i++) {
                    puts[i] = Op.put(ByteSequence.from("too-many/" + i, StandardCharsets.UTF_8),
                            ByteSequence.from("x", StandardCharsets.UTF_8), PutOption.DEFAULT);
                }
                assertThatThrownBy(() -> rpc.await(client.getKVClient().txn().Then(puts).commit(), "too-many",
                        "send an oversized transaction"))
                        .isInstanceOf(LockBackendException.class)
                        .satisfies(e -> assertThat(EtcdErrors.isTooManyOps(e)).as("recognized: " + e).isTrue());

                Op[] fit = java.util.Arrays.copyOf(puts, 128);
                assertThat(rpc.await(client.getKVClient().txn().Then(fit).commit(), "too-many", "send 128 puts")
                        .isSucceeded()).isTrue();
                assertThat(EtcdErrors.isTooManyOps(new IllegalStateException("too many operations in txn request")))
                        .as("only etcd's INVALID_ARGUMENT answer counts").isFalse();
            }
        }
    }
}
