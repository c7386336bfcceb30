package dev.trainadvisor.advice;

import dev.trainadvisor.engine.RuleEngine;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread's rule session of the shipped rules is reset after each run and used again for the next
 * (engine.RuleEngine#run): nothing of one run's facts or conclusions reaches the next. Each of the varied runs of
 * LayoutCacheAdviceTest (published runs of one source at other scales, twice with other measurements, the examples, the
 * test runs, runs that do not fit) is advised once on a thread of its own, with a session made for it, and then all of
 * them one after the other on one thread, in a shuffled order, with the one session: the JSON is the same, byte for byte.
 * A session that kept a fact, a conclusion or the agenda's state of an earlier run would change a later one's diagnoses.
 */
class SessionReuseAdviceTest {

    @Test
    void runsAdvisedOneAfterTheOtherWithOneSessionSayWhatEachSaysWithItsOwn() throws Exception {
        List<LayoutCacheAdviceTest.Run> runs = new ArrayList<>(LayoutCacheAdviceTest.runs());
        assertTrue(runs.size() > 150, "runs: " + runs.size());
        Collections.shuffle(runs, new Random(23));
        TrainAdvisor advisor = new TrainAdvisor(RuleEngine.builtIn()).withoutLayoutSearch();
        List<String> own = new ArrayList<>();
        for (LayoutCacheAdviceTest.Run r : runs) {
            String[] json = new String[1];
            Thread t = new Thread(() -> json[0] = LayoutCacheAdviceTest.advise(advisor, r));
            t.start();
            t.join();
            own.add(json[0]);
        }
        for (int i = 0; i < runs.size(); i++)
            assertEquals(own.get(i), LayoutCacheAdviceTest.advise(advisor, runs.get(i)), runs.get(i).name());
    }
}
