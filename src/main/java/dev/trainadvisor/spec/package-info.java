/**
 * The run model: run files read and validated, the catalogue of GPUs, links, networks, hosts and models, the
 * frameworks' profiles.
 *
 * <p><b>Internal.</b> Not part of train-advisor's API, which is the package {@code dev.trainadvisor.api} alone
 * (docs/library.md): the types here change without notice, and a library user's code should not name them.
 * <p>A rule file (docs/rules.md) names the facts and values of this package; that is a contract of the rule files,
 * not of the Java API.
 * <p><b>Records with their equals and hashCode written out.</b> The run's records (here, the facts, the step model's
 * and the search's keys) write out the equals and hashCode Java would generate: a generated one is linked at its first
 * call through method handles (java.lang.runtime.ObjectMethods builds a tree of them per record class, whose forms are
 * spun into classes), which cost a cold `advise` 0.13 s of its 1.5 s of CPU for the 30 records it hashes (alternated
 * with the generated ones, bench/coldstart.sh's run). RecordMethodsTest holds every record that writes them out to
 * the generated ones, component by component.
 */
package dev.trainadvisor.spec;
