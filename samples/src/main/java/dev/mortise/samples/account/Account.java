package dev.mortise.samples.account;

/**
 * One row of the {@code accounts} table.
 *
 * @param id               the account id
 * @param balance          the balance, in cents
 * @param lastFencingToken the highest fencing token that has written this row; a write
 *                         carrying a lower (or equal) token is refused
 */
public record Account(String id, long balance, long lastFencingToken) {
}
