package dev.mortise.lock.bench.report;

import static dev.mortise.lock.bench.report.Page.count;
import static dev.mortise.lock.bench.report.Page.decimal;
import static dev.mortise.lock.bench.report.Page.grouped;
import static dev.mortise.lock.bench.report.Page.name;
import static dev.mortise.lock.bench.report.Page.title;

import dev.mortise.lock.bench.common.KeySetResult;
import dev.mortise.lock.bench.common.Role;
import dev.mortise.lock.bench.report.chart.KeySetChart;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** The benchmark page's read-write and multi-key lock tables (issue 16), each left out when the run has no such results. */
final class KeySetSections {

    private KeySetSections() {
    }

    static void write(RunReport report, Page page) {
        List<KeySetResult> readWrite = report.keySets.stream()
                .filter(r -> r.scenario().equals(KeySetResult.READ_WRITE)).toList();
        List<KeySetResult> multiKey = report.keySets.stream()
                .filter(r -> r.scenario().equals(KeySetResult.MULTI_KEY)).toList();
        if (!readWrite.isEmpty()) {
            readWrite(report, page, readWrite);
        }
        if (!multiKey.isEmpty()) {
            multiKey(report, page, multiKey);
        }
    }

    private static void readWrite(RunReport report, Page page, List<KeySetResult> readWrite) {
        KeySetResult any = readWrite.get(0);
        page.line("## Read-write locks (issue 16)");
        page.line("");
        page.chart("readwrite.png", "Read-write locks: ops/s, read and write p50 and p99 per backend and library",
                KeySetChart.readWrite(readWrite));
        page.line(String.format("%d threads in one JVM share %d keys; each op picks a key at random and takes it "
                + "shared (a read) with probability %d %%, exclusive (a write) otherwise, holds it for a short "
                + "critical section (`parkNanos(100 µs)`) and releases. Mortise uses `LockSpec.of(key).shared()` "
                + "/ exclusive; the peers their read-write locks (Redisson `RReadWriteLock`, Curator "
                + "`InterProcessReadWriteLock`). p50/p99 are acquire (with the wait) + release, without the "
                + "critical section; ops/s counts reads and writes over all threads. Every grant is checked "
                + "against the other holders in the JVM (a violation would be listed under \"Missing or "
                + "failed\"). Server requests per op are counted on ZooKeeper (`mntr` packets received) and etcd (gRPC "
                + "messages received), heartbeats included. etcd and SQL have no peer with a read-write lock: Mortise alone there.",
                any.threads(), any.keys(), any.readPercent()));
        page.line("");
        page.line("| backend | library | ops/s | reads | read p50 µs | read p99 µs | writes | write p50 µs "
                + "| write p99 µs | timeouts | server requests / op | ops/s ÷ peer | read p50 ÷ peer | write p50 ÷ peer |");
        page.line("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        rows(report, page, readWrite, (group, r, peer, mortise) -> String.format(
                "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", title(group), name(r.label(), r.role()), grouped(r.opsPerSecond()), count(r.reads()),
                decimal(r.readP50()), decimal(r.readP99()), count(r.writes()), decimal(r.writeP50()),
                decimal(r.writeP99()), count(r.timeouts()), requests(r),
                mortise ? Ratios.ratio(r.opsPerSecond(), peer.get().opsPerSecond()) : "—",
                mortise ? Ratios.ratio(r.readP50(), peer.get().readP50()) : "—",
                mortise ? Ratios.ratio(r.writeP50(), peer.get().writeP50()) : "—"));
        page.line("");
    }

    private static void multiKey(RunReport report, Page page, List<KeySetResult> multiKey) {
        KeySetResult any = multiKey.get(0);
        page.line("## Multi-key locks (issue 16)");
        page.line("");
        page.chart("multikey.png", "Multi-key locks: ops/s, p50 and p99 per backend and library",
                KeySetChart.multiKey(multiKey));
        page.line(String.format("%d threads in one JVM; each op takes %d distinct random keys of %d at once (all "
                + "exclusive; the keys sorted for every library), holds them for `parkNanos(100 µs)` and releases "
                + "them. Mortise uses `LockClient.tryAcquireAll(keys, wait)`; the peers Redisson's multi-lock "
                + "(`getMultiLock(RLock...)`, a `RedissonMultiLock`) and Curator `InterProcessMultiLock`. p50/p99 "
                + "are acquire (with the wait) + release of all keys, without the critical section.",
                any.threads(), any.keysPerOp(), any.keys()));
        page.line("");
        page.line("| backend | library | ops/s | ops | p50 µs | p99 µs | timeouts | server requests / op | ops/s ÷ peer "
                + "| p50 ÷ peer |");
        page.line("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        rows(report, page, multiKey, (group, r, peer, mortise) -> String.format(
                "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", title(group),
                name(r.label(), r.role()), grouped(r.opsPerSecond()), count(r.writes()),
                decimal(r.writeP50()), decimal(r.writeP99()), count(r.timeouts()), requests(r),
                mortise ? Ratios.ratio(r.opsPerSecond(), peer.get().opsPerSecond()) : "—",
                mortise ? Ratios.ratio(r.writeP50(), peer.get().writeP50()) : "—"));
        page.line("");
    }

    /** One table row of a result, beside the best peer of its backend's rows (if any). */
    @FunctionalInterface
    private interface Row {
        /** @param mortise whether {@code r} is Mortise's row and there is a peer to compare it with */
        String format(String group, KeySetResult r, Optional<KeySetResult> peer, boolean mortise);
    }

    /** The rows of {@code results}, a backend at a time in the report's order, each compared with the backend's best peer. */
    private static void rows(RunReport report, Page page, List<KeySetResult> results, Row row) {
        for (String group : Page.groups(report)) {
            List<KeySetResult> cell = results.stream().filter(r -> r.group().equals(group)).toList();
            Optional<KeySetResult> peer = bestPeer(cell);
            for (KeySetResult r : cell) {
                page.line(row.format(group, r, peer, r.role() == Role.MORTISE && peer.isPresent()));
            }
        }
    }

    /** Server requests per op, where counted (ZooKeeper, etcd). */
    private static String requests(KeySetResult r) {
        return Double.isNaN(r.serverRequestsPerOp()) ? "—" : String.format("%.2f", r.serverRequestsPerOp());
    }

    /** The peer with the highest throughput in one backend's rows, if any. */
    private static Optional<KeySetResult> bestPeer(List<KeySetResult> cell) {
        return cell.stream().filter(r -> r.role() == Role.PEER)
                .max(Comparator.comparingDouble(KeySetResult::opsPerSecond));
    }
}
