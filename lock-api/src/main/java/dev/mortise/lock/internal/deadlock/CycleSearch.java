package dev.mortise.lock.internal.deadlock;

import dev.mortise.lock.DeadlockDetection;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.WaitRecords;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * One detection round's walk from a wait along the chain key → holders → their wait records, and the
 * second pass that confirms a cycle it found. Not thread-safe: one per round.
 *
 * <p>Why a confirmed cycle is real: a hold's presence on the server is one interval (its owner string
 * is unique per hold), and so is a wait (its nonce is unique, and its record is removed before its
 * acquire returns). The second pass begins after the first ends; seeing every hold (same holder id
 * and token) and every record (same text) again proves each was present at one instant between the
 * passes, when each member was blocked in its acquire by a hold of the next in a conflicting mode.
 */
final class CycleSearch {

    /**
     * One step of a chain: the member waiting for {@code key} in {@code mode} is blocked by the hold
     * {@code holderId}, whose owner's wait record is {@code nextText} (null when the hold is the
     * searching wait's own: the step that closes the cycle); {@code writerText} is the record of the
     * writer a shared wait is queued behind when only readers hold the key, else null.
     */
    record Edge(String key, LockMode mode, String holderId, OptionalLong token, String nextText,
                String writerText) {
    }

    private final LockBackend backend;
    private final WaitRecords records;
    private final UnaryOperator<String> holderIds;
    private int requests;

    /** @param holderIds the holder-id digest of owner strings (as {@code LockLease.holderId()} shows them) */
    CycleSearch(LockBackend backend, WaitRecords records, UnaryOperator<String> holderIds) {
        this.backend = backend;
        this.records = records;
        this.holderIds = holderIds;
    }

    /** Requests sent so far by this search (inspections and record reads). */
    int requests() {
        return requests;
    }

    /** The chain from {@code me} back to one of its holds, or null if none was found within the bounds. */
    List<Edge> find(WaitWatch me) {
        Set<String> seen = new HashSet<>();
        seen.add(me.record.nonce());
        return follow(me.key(), me.mode(), me, new ArrayList<>(), seen);
    }

    private List<Edge> follow(String key, LockMode mode, WaitWatch me, List<Edge> path, Set<String> seen) {
        if (path.size() >= DeadlockDetection.MAX_DEPTH || requests >= DeadlockDetection.MAX_REQUESTS_PER_ROUND) {
            return null;
        }
        KeyState state = inspect(key);
        String writer = queuedBehind(state, key, mode);
        Map<String, KeyState.Holder> blocking = blocking(state, mode, writer != null);
        for (Map.Entry<String, KeyState.Holder> holder : blocking.entrySet()) {
            if (me.heldKeys.containsKey(holder.getKey())) {
                path.add(new Edge(key, mode, holder.getKey(), holder.getValue().fencingToken(), null, writer));
                return path;
            }
        }
        if (blocking.isEmpty() || requests >= DeadlockDetection.MAX_REQUESTS_PER_ROUND) {
            return null;
        }
        Map<String, String> found = read(List.copyOf(blocking.keySet()));
        for (Map.Entry<String, KeyState.Holder> holder : blocking.entrySet()) {
            String text = found.get(holder.getKey());
            WaitRecordText next = text == null ? null : WaitRecordText.decode(text);
            if (next == null || !seen.add(next.nonce())) {
                continue;
            }
            path.add(new Edge(key, mode, holder.getKey(), holder.getValue().fencingToken(), text, writer));
            List<Edge> cycle = follow(next.key(), next.mode(), me, path, seen);
            if (cycle != null) {
                return cycle;
            }
            path.remove(path.size() - 1);
        }
        return null;
    }

    /**
     * The second pass: every record of the chain read again with the same text, then every key
     * inspected again with the same blocking hold (holder id and token).
     */
    boolean confirm(List<Edge> chain) {
        Map<String, String> texts = new LinkedHashMap<>();
        for (Edge edge : chain) {
            if (edge.nextText() != null) {
                texts.put(edge.holderId(), edge.nextText());
            }
            if (edge.writerText() != null) {
                texts.put(WriterMarkers.of(edge.key(), holderIds), edge.writerText());
            }
        }
        if (!read(List.copyOf(texts.keySet())).equals(texts)) {
            return false;
        }
        for (Edge edge : chain) {
            KeyState.Holder holder = blocking(inspect(edge.key()), edge.mode(), edge.writerText() != null)
                    .get(edge.holderId());
            if (holder == null || !holder.fencingToken().equals(edge.token())) {
                return false;
            }
        }
        return true;
    }

    /**
     * The record of the writer a shared wait for {@code key} is queued behind, when only readers hold
     * the key and its writer marker holds an exclusive wait for it; else null (one read, only then).
     */
    private String queuedBehind(KeyState state, String key, LockMode mode) {
        if (mode != LockMode.SHARED || state.mode() != LockMode.SHARED
                || requests >= DeadlockDetection.MAX_REQUESTS_PER_ROUND) {
            return null;
        }
        String marker = WriterMarkers.of(key, holderIds);
        String text = read(List.of(marker)).get(marker);
        WaitRecordText writer = text == null ? null : WaitRecordText.decode(text);
        return writer != null && writer.mode() == LockMode.EXCLUSIVE && writer.key().equals(key) ? text : null;
    }

    /**
     * The holds that block a request of {@code mode}, by holder id: every hold blocks an exclusive
     * request; only an exclusive hold blocks a shared one, unless the shared one is queued behind a
     * waiting writer ({@code behindWriter}), which waits for every holder.
     */
    private Map<String, KeyState.Holder> blocking(KeyState state, LockMode mode, boolean behindWriter) {
        Map<String, KeyState.Holder> blocking = new LinkedHashMap<>();
        if (!state.held() || (mode == LockMode.SHARED && state.mode() == LockMode.SHARED && !behindWriter)) {
            return blocking;
        }
        for (KeyState.Holder holder : state.holders()) {
            blocking.put(holderIds.apply(holder.owner()), holder);
        }
        return blocking;
    }

    private KeyState inspect(String key) {
        requests++;
        return backend.inspect(key);
    }

    private Map<String, String> read(List<String> holderIds) {
        if (holderIds.isEmpty()) {
            return Map.of();
        }
        requests++;
        return records.read(holderIds);
    }
}
