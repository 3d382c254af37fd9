package dev.mortise.lock.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The opaque holder id of an owner string: the first 16 hex digits (64 bits) of its SHA-256.
 * Owner strings are release credentials (a backend deletes a hold for whoever presents its
 * owner), so diagnostics show this digest instead: stable, the same on every client, and of no
 * use for releasing. Stateless; thread-safe.
 */
final class HolderIds {

    private HolderIds() {
    }

    /** The holder id of {@code owner}, the owner string a backend stores with a hold. */
    static String of(String owner) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
        byte[] digest = sha256.digest(owner.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest, 0, 8);
    }
}
