/**
 * train-advisor as a module: it exports {@code dev.trainadvisor.api} alone (docs/library.md), so that code on the module
 * path cannot name the internal packages. It is open, for reflection only: Drools instantiates and introspects the
 * rules compiled into {@code dev.trainadvisor.rules.*} and reads the facts of the rules it compiles at run time (a
 * team's rules), which an encapsulated module refuses ("module dev.trainadvisor does not opens
 * dev.trainadvisor.rules.offload to module org.drools.mvel", measured). On the class path, where most users put it,
 * the descriptor is ignored and ApiBoundaryTest keeps the boundary.
 */
open module dev.trainadvisor {
    exports dev.trainadvisor.api;

    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.dataformat.csv;
    requires com.fasterxml.jackson.dataformat.yaml;
    requires commons.math3;
    requires org.drools.base;
    requires org.drools.canonicalmodel;
    requires org.drools.compiler;
    requires org.drools.core;
    requires org.drools.drl.ast;
    requires org.drools.drl.parser;
    requires org.drools.kiesession;
    requires org.drools.modelcompiler;
    requires org.drools.mvel;
    requires org.drools.util;
    requires org.kie.api;
    requires org.kie.internal.api;
    // the command line's alone (package cli); optional in the pom, so a library user has none
    requires static info.picocli;
}
