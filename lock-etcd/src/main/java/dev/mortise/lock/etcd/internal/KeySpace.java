package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.KeyEncoding;
import dev.mortise.lock.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;

import java.nio.charset.StandardCharsets;

/**
 * Where a lock lives in etcd: {@code <namespace><encoded key>/<encoded owner>~<round>} for an
 * exclusive (writer) hold or waiter, {@code <namespace><encoded key>/#<encoded owner>~<round>}
 * for a shared (reader) one, {@code <namespace><encoded key>/$<encoded owner>~<round>} for a
 * semaphore's permit hold or waiter.
 *
 * <p>The user's key is percent-encoded so that the encoded form never contains {@code /};
 * the lock's prefix ends with the first {@code /} after the namespace, so no lock's prefix
 * is a prefix of another lock's keys ({@code a/} never matches {@code a%2Fb/x}), and two
 * different keys never share a prefix (percent-encoding is injective). Immutable.
 */
public final class KeySpace {

    private final String namespace;

    /** @param namespace the string every lock key starts with (may be empty, may contain {@code /}) */
    public KeySpace(String namespace) {
        this.namespace = namespace;
    }

    public String namespace() {
        return namespace;
    }

    /** The prefix under which every waiter and the holder of {@code key} put their own key. */
    public ByteSequence prefix(String key) {
        return bytes(namespace + KeyEncoding.percentEncode(key, KeyEncoding::isPlainChar) + "/");
    }

    /**
     * The key of one hold or waiter: unique per owner (the core makes owners unique per
     * hold) and per round (a waiter whose key vanished enqueues again under a new one).
     */
    public ByteSequence ownKey(ByteSequence prefix, String owner, int round) {
        return prefix.concat(bytes(KeyEncoding.percentEncode(owner, KeyEncoding::isPlainChar) + "~" + round));
    }

    /**
     * The key of one shared (read) hold or waiter: {@link #ownKey} with {@code #} in front of
     * the owner. An encoded owner never contains {@code #} (nor {@code $}) and every one of its
     * characters sorts after {@code $}, so under a lock's prefix the reader keys sort before
     * {@link #writersFrom} and every writer key at or after it: one range read finds the writers
     * alone. A reader key and a writer key never share a name.
     */
    public ByteSequence readerKey(ByteSequence prefix, String owner, int round) {
        return prefix.concat(bytes("#" + KeyEncoding.percentEncode(owner, KeyEncoding::isPlainChar) + "~" + round));
    }

    /**
     * The key of {@code request} under {@code prefix} for one round of queueing: a reader key
     * for a shared request, else an owner key. The one encoding of single and batch acquires.
     */
    public ByteSequence keyOf(LockRequest request, ByteSequence prefix, int round) {
        if (request.takesPermits()) {
            return permitKey(prefix, request.owner(), round);
        }
        return request.shared() ? readerKey(prefix, request.owner(), round) : ownKey(prefix, request.owner(), round);
    }

    /**
     * The key of one permit (semaphore) hold or waiter: {@link #ownKey} with {@code $} in front of
     * the owner. It sorts at or after {@link #writersFrom} and before every writer key (an encoded
     * owner's characters all sort after {@code $}), so a plain reader waits for it as for a writer,
     * and the permit keys alone are the range {@link #permitsFrom} to {@link #permitsEnd}.
     */
    public ByteSequence permitKey(ByteSequence prefix, String owner, int round) {
        return prefix.concat(bytes("$" + KeyEncoding.percentEncode(owner, KeyEncoding::isPlainChar) + "~" + round));
    }

    /** Where the permit keys of the lock at {@code prefix} begin ({@link #permitKey}). */
    public static ByteSequence permitsFrom(ByteSequence prefix) {
        return prefix.concat(bytes("$"));
    }

    /** The first key after every permit key of the lock at {@code prefix} ({@code $} + 1 is {@code %}). */
    public static ByteSequence permitsEnd(ByteSequence prefix) {
        return prefix.concat(bytes("%"));
    }

    /** Whether {@code key}, a key under a prefix of {@code prefixLength} bytes, is a permit key. */
    public static boolean isPermitKey(ByteSequence key, int prefixLength) {
        byte[] name = key.getBytes();
        return name.length > prefixLength && name[prefixLength] == '$';
    }

    /**
     * Where the writer keys of the lock at {@code prefix} begin: the range from here to
     * {@link #prefixEnd} holds every writer key of the lock and no reader key.
     */
    public static ByteSequence writersFrom(ByteSequence prefix) {
        return prefix.concat(bytes("$"));
    }

    /** The first key after every key under {@code prefix} (which ends with {@code /}). */
    public static ByteSequence prefixEnd(ByteSequence prefix) {
        byte[] end = prefix.getBytes();
        end[end.length - 1]++;
        return ByteSequence.from(end);
    }

    /**
     * The fence key of one session lease. {@code #} never appears in an encoded key, so no
     * lock's prefix can reach it.
     */
    ByteSequence fenceKey(long leaseId) {
        return bytes(namespace + "#fence/" + Long.toHexString(leaseId));
    }

    /**
     * The prefix of the wait record of one holder id ({@link EtcdWaitRecords}): {@code <namespace>#wait/<id>/}.
     * {@code #} never appears in an encoded key, so no lock's prefix can reach it; holder ids are hex
     * digits of one length, so no id's prefix is another's.
     */
    ByteSequence waitRecordPrefix(String holderId) {
        return bytes(namespace + "#wait/" + holderId + "/");
    }

    /** The key of the wait record of {@code holderId} published with {@code nonce}: its prefix, then the nonce. */
    ByteSequence waitRecordKey(String holderId, String nonce) {
        return waitRecordPrefix(holderId).concat(bytes(nonce));
    }

    /** A key no lock uses, read by pings. */
    ByteSequence pingKey() {
        return bytes(namespace + "#ping");
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "KeySpace[" + namespace + "]";
    }
}
