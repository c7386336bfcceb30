/**
 * One assembly of a run: a run file with the log, config, nccl-tests outputs and topology it names, or a training log
 * with what the caller knows of the run, merged and validated into one run, what was assumed listed.
 *
 * <p><b>Internal.</b> Not part of train-advisor's API, which is the package {@code dev.trainadvisor.api} alone
 * (docs/library.md): the types here change without notice, and a library user's code should not name them.
 */
package dev.trainadvisor.assemble;
