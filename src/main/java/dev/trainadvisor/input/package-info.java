/**
 * Bad input as one message naming the file, the field and what was expected; files read within bounds.
 *
 * <p><b>Internal.</b> Not part of train-advisor's API, which is the package {@code dev.trainadvisor.api} alone
 * (docs/library.md): the types here change without notice, and a library user's code should not name them.
 */
package dev.trainadvisor.input;
