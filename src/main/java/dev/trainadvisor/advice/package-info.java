/**
 * The advice for one run: its baseline (the catalogue prediction and the fit to its times), the facts, what the rules
 * conclude, and every remedy priced from the baseline.
 *
 * <p><b>Internal.</b> Not part of train-advisor's API, which is the package {@code dev.trainadvisor.api} alone
 * (docs/library.md): the types here change without notice, and a library user's code should not name them.
 */
package dev.trainadvisor.advice;
