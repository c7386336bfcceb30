/**
 * The rules engine: the shipped rules (compiled at build time into Drools' executable model) and a team's own, run in
 * sessions under limits.
 *
 * <p><b>Internal.</b> Not part of train-advisor's API, which is the package {@code dev.trainadvisor.api} alone
 * (docs/library.md): the types here change without notice, and a library user's code should not name them.
 */
package dev.trainadvisor.engine;
