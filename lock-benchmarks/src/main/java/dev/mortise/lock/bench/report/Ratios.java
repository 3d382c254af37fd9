package dev.mortise.lock.bench.report;

import dev.mortise.lock.bench.common.HandoffResult;
import dev.mortise.lock.bench.common.UncontendedResult;
import dev.mortise.lock.bench.common.Role;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** The references each result is compared with: the floor and the best peer of the same group and thread count. */
public final class Ratios {

    private Ratios() {
    }

    public static List<UncontendedResult> sameCell(List<UncontendedResult> all, String group, int threads) {
        return all.stream().filter(r -> r.group().equals(group) && r.threads() == threads).toList();
    }

    /** The first floor of the cell (the catalog lists the main floor first). */
    public static Optional<UncontendedResult> floor(List<UncontendedResult> cell) {
        return cell.stream().filter(r -> r.role() == Role.FLOOR).findFirst();
    }

    /**
     * The floor a row is compared with: the floor on the same transport when the cell has one (a
     * {@code -lettuce} subject against {@code floor-…-lettuce}), else the cell's first floor.
     */
    public static Optional<UncontendedResult> floorFor(List<UncontendedResult> cell, UncontendedResult row) {
        if (row.id().endsWith("-lettuce")) {
            Optional<UncontendedResult> same = cell.stream()
                    .filter(r -> r.role() == Role.FLOOR && r.id().endsWith("-lettuce")).findFirst();
            if (same.isPresent()) {
                return same;
            }
        }
        return cell.stream().filter(r -> r.role() == Role.FLOOR && !r.id().endsWith("-lettuce")).findFirst()
                .or(() -> floor(cell));
    }

    public static Optional<UncontendedResult> bestPeerLatency(List<UncontendedResult> cell) {
        return cell.stream().filter(r -> r.role() == Role.PEER).min(Comparator.comparingDouble(UncontendedResult::p50));
    }

    public static Optional<UncontendedResult> bestPeerThroughput(List<UncontendedResult> cell) {
        return cell.stream().filter(r -> r.role() == Role.PEER)
                .max(Comparator.comparingDouble(UncontendedResult::opsPerSecond));
    }

    public static Optional<HandoffResult> bestPeerHandoff(List<HandoffResult> cell) {
        return cell.stream().filter(r -> r.role() == Role.PEER && r.handoffs() > 0)
                .min(Comparator.comparingDouble(HandoffResult::p50));
    }

    /** {@code a / b} as "1.23×", or "—" when either side is missing. */
    public static String ratio(double a, double b) {
        if (Double.isNaN(a) || Double.isNaN(b) || b == 0) {
            return "—";
        }
        return String.format("%.2f×", a / b);
    }
}
