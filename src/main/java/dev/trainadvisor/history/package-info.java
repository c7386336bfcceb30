/**
 * A run's per-step history as its log prints it, and what it shows (stalls, slowdowns, loss-scale skips).
 *
 * <p><b>Internal.</b> Not part of train-advisor's API, which is the package {@code dev.trainadvisor.api} alone
 * (docs/library.md): the types here change without notice, and a library user's code should not name them.
 * <p>A rule file (docs/rules.md) names the facts and values of this package; that is a contract of the rule files,
 * not of the Java API.
 */
package dev.trainadvisor.history;
