package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A key expression that yields a collection or an array locks every element as one multi-key
 * lock: calls with overlapping key sets exclude each other, whatever instance or order the keys
 * come in.
 */
class DistributedLockMultiKeyTests {

    private final ApplicationContextRunner runner = LockTestSupport.localRunner()
            .withPropertyValues("mortise.lock.wait-for=30s");

    @Test
    void twoCallsWithEqualContentArraysExcludeEachOther() {
        runner.withBean(Batch.class).run(context -> {
            Batch batch = context.getBean(Batch.class);
            concurrently(10, i -> batch.array(i % 2 == 0 ? new String[] {"a", "b"} : new String[] {"b", "a"}));
            assertThat(batch.calls()).isEqualTo(10);
            assertThat(batch.overlaps()).as("calls inside at once").isZero();
        });
    }

    @Test
    void overlappingListsInAnyOrderExcludeEachOther() {
        runner.withBean(Batch.class).run(context -> {
            Batch batch = context.getBean(Batch.class);
            concurrently(12, i -> batch.list(switch (i % 3) {
                case 0 -> List.of("x", "y");
                case 1 -> List.of("z", "y");
                default -> new ArrayList<>(List.of("y", "x", "z", "x"));
            }));
            assertThat(batch.calls()).isEqualTo(12);
            assertThat(batch.overlaps()).isZero();
        });
    }

    @Test
    void everyElementIsHeldWhileTheMethodRunsAndNoneAfter() {
        runner.withBean(Batch.class).run(context -> {
            Batch batch = context.getBean(Batch.class);
            assertThat(batch.heldInside(Set.of("k1", "k2", "k3"))).containsExactlyInAnyOrder("k1", "k2", "k3");
            assertThat(batch.heldInside(new int[] {7, 8})).containsExactlyInAnyOrder("7", "8");
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void oneBusyElementKeepsTheMethodFromRunningAndHoldsNothing() {
        runner.withBean(Batch.class).run(context -> {
            Batch batch = context.getBean(Batch.class);
            LockClient client = context.getBean(LockClient.class);
            try (LockLease elsewhere = LockTestSupport.holdElsewhere(client, "m2")) {
                assertThat(batch.skipIfBusy(List.of("m1", "m2", "m3"))).isNull();
                assertThat(batch.calls()).isZero();
                assertThat(client.heldLocks()).extracting(h -> h.key()).containsExactly("m2");
            }
            assertThat(batch.skipIfBusy(List.of("m1", "m2", "m3"))).isEqualTo("ran");
        });
    }

    @Test
    void aMonoCallWaitsForEveryKeyAndACancelledOneTakesNothing() {
        runner.withBean(Batch.class).run(context -> {
            Batch batch = context.getBean(Batch.class);
            LockClient client = context.getBean(LockClient.class);
            LockLease elsewhere = LockTestSupport.holdElsewhere(client, "r2");
            java.util.concurrent.CompletableFuture<List<String>> waiting = batch.heldInsideMono(List.of("r1", "r2"), client)
                    .toFuture();
            reactor.core.Disposable cancelled = batch.heldInsideMono(List.of("r3", "r2"), client).subscribe();
            Thread.sleep(200);
            assertThat(waiting).as("one key of two is held elsewhere").isNotDone();
            // Parts are taken in canonical order: the first call holds r1 while it waits for r2; the second
            // waits for r2 first, holding nothing.
            assertThat(client.heldLocks()).extracting(h -> h.key()).containsExactlyInAnyOrder("r2", "r1");
            cancelled.dispose();
            elsewhere.close();
            assertThat(waiting.get(30, TimeUnit.SECONDS)).containsExactlyInAnyOrder("r1", "r2");
            for (int i = 0; i < 100 && !client.heldLocks().isEmpty(); i++) {
                Thread.sleep(20);
            }
            assertThat(client.heldLocks()).as("released after the Mono, nothing left by the cancelled call").isEmpty();
        });
    }

    @Test
    void aNestedCallOnOneOfTheKeysReentersItsPart() {
        runner.withBean(Batch.class).withBean(Single.class).run(context -> {
            Batch batch = context.getBean(Batch.class);
            assertThat(batch.nested(List.of("n1", "n2"), context.getBean(Single.class))).isEqualTo(2);
        });
    }

    @Test
    void anEmptyCollectionIsAnErrorNamingTheMethodAndExpression() {
        runner.withBean(Batch.class).run(context -> {
            Batch batch = context.getBean(Batch.class);
            assertThatThrownBy(() -> batch.list(List.of())).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Batch.list(List)").hasMessageContaining("\"#keys\"")
                    .hasMessageContaining("empty");
            assertThatThrownBy(() -> batch.array(new String[0])).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Batch.array(String[])").hasMessageContaining("empty array");
            assertThat(batch.calls()).isZero();
        });
    }

    @Test
    void everyElementIsCheckedAsAKeyIs() {
        runner.withBean(Batch.class).run(context -> {
            Batch batch = context.getBean(Batch.class);
            assertThatThrownBy(() -> batch.list(Arrays.asList("a", null))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Batch.list(List)").hasMessageContaining("null element 1");
            assertThatThrownBy(() -> batch.list(List.of("a", " "))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("element 1").hasMessageContaining("blank");
            assertThatThrownBy(() -> batch.objects(List.of(new Object())))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("no toString of its own");
            assertThatThrownBy(() -> batch.objects(List.of(List.of("a"))))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("flat collection");
            assertThat(batch.calls()).isZero();
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void aFencingTokenParameterNeedsASingleKey() {
        runner.withBean(Batch.class).run(context -> {
            Batch batch = context.getBean(Batch.class);
            assertThatThrownBy(() -> batch.fenced(List.of("f1", "f2"), 0)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Batch.fenced(List, long)").hasMessageContaining("@FencingToken")
                    .hasMessageContaining("[f1, f2]").hasMessageContaining("did not run");
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    private static void concurrently(int calls, java.util.function.IntConsumer call) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                int n = i;
                futures.add(threads.submit(() -> call.accept(n)));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    public static class Batch {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger calls = new AtomicInteger();

        /** Read through methods: a field of the proxy is not the bean's. */
        public int calls() {
            return calls.get();
        }

        public int overlaps() {
            return overlaps.get();
        }

        private void work() {
            calls.incrementAndGet();
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            inside.decrementAndGet();
        }

        @DistributedLock(key = "#keys")
        public void array(String[] keys) {
            work();
        }

        @DistributedLock(key = "#keys")
        public void list(List<String> keys) {
            work();
        }

        @DistributedLock(key = "#keys")
        public void objects(List<Object> keys) {
            work();
        }

        @DistributedLock(key = "#keys")
        public List<String> heldInside(Object keys) {
            List<String> held = new ArrayList<>();
            for (String key : List.of("k1", "k2", "k3", "7", "8")) {
                LockContext.find(key).ifPresent(lease -> held.add(lease.key()));
            }
            return held;
        }

        /** The keys {@code client} holds while the method's Mono runs. */
        @DistributedLock(key = "#keys")
        public reactor.core.publisher.Mono<List<String>> heldInsideMono(List<String> keys, LockClient client) {
            return reactor.core.publisher.Mono.fromCallable(() -> client.heldLocks().stream().map(h -> h.key()).toList());
        }

        @DistributedLock(key = "#keys", onBusy = OnBusy.SKIP)
        public String skipIfBusy(List<String> keys) {
            calls.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "#keys")
        public int nested(List<String> keys, Single single) {
            return single.holdCount(keys.get(0));
        }

        @DistributedLock(key = "#keys")
        public void fenced(List<String> keys, @FencingToken long token) {
            work();
        }
    }

    public static class Single {
        @DistributedLock(key = "#key", onBusy = OnBusy.FAIL)
        public int holdCount(String key) {
            return LockContext.find(key).orElseThrow().holdCount();
        }
    }
}
