package dev.trainadvisor.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** A user can add a folder of rules at run time; they see the same facts and report the same way. */
class UserRulesFolderTest {

    @Test
    void aRuleFromAUserFolderFiresBesideTheShippedOnes(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("site.drl"), """
                package site.rules;
                import dev.trainadvisor.facts.RunFact;
                global dev.trainadvisor.engine.Findings findings;
                rule "our PCIe nodes are known to be slow"
                    @id("link-underperforms") @title("Site knowledge: PCIe nodes")
                    @description("Our PCIe nodes route GPU traffic across sockets; nccl-tests shows half the catalogue bandwidth.")
                when
                    $r : RunFact( intraLinkKind == "pcie" )
                then
                    findings.diagnose(kcontext, 0.3, "PCIe node " + $r.intraLink());
                end
                """);
        RuleEngine engine = RuleEngine.withFolder(dir);
        assertTrue(engine.rules().stream().anyMatch(r -> r.name().equals("our PCIe nodes are known to be slow")
                && r.file().endsWith("site.drl")));
        RuleEngine.Result pcie = engine.run(GivenFacts.of("internlm-7b-pcie-1node.yaml").facts);
        assertEquals("high", GivenFacts.only(pcie, "link-underperforms").severity());
        RuleEngine.Result nvlink = engine.run(GivenFacts.of("internlm-7b-nvlink-1node.yaml").facts);
        assertFalse(GivenFacts.fired(nvlink, "link-underperforms"));
    }

    @Test
    void aRuleThatDoesNotCompileIsBadInputNamingTheFile(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("broken.drl"), "package x; rule \"r\" when Nope( ) then end");
        dev.trainadvisor.spec.SpecException e = assertThrows(dev.trainadvisor.spec.SpecException.class,
                () -> RuleEngine.withFolder(dir));
        assertTrue(e.getMessage().contains("broken.drl"), e.getMessage());
    }
}
