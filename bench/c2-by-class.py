#!/usr/bin/env python3
"""What the optimising compiler (C2) spends on each class of a batch, beside what the batch runs of that class.

    python3 bench/c2-by-class.py FLEET [N]      records a batch of the folder FLEET (bench/fleet.py draws one) through
                                                bin/train-advisor with JFR, then prints the table
    python3 bench/c2-by-class.py REC.jfr [N]    the table of a recording made with JFR's compilations at threshold 0

For each class: the milliseconds of C2's compilations of its methods (JFR's jdk.Compilation events, every one: the
JDK's profile settings with their 100 ms threshold set to 0, sampling every 2 ms) and how many, and the samples whose
innermost frame is one of its methods (jdk.ExecutionSample; inlined methods are frames of their own), as
milliseconds: the samples' share of the batch's CPU time outside the compilers' (recorded here; else a share in %).
A class whose compilations cost many times what it runs is one a batch runs too seldom to repay C2
(docs/development.md, "The batch": bin/batch-compiler-directives.json came from this table). Prints the N (default
40) classes with the most C2 time beyond three times their running. Builds nothing (mvn -B -ntp -q package
-DskipTests first).
"""
import collections
import os
import re
import resource
import subprocess
import sys
import tempfile


def events(jfr, kind, *extra):
    out = subprocess.run(["jfr", "print", "--events", kind, *extra, jfr], capture_output=True, text=True, check=True).stdout
    return out


def millis(d):
    v, unit = d.split()
    v = float(v)
    return {"s": v * 1000, "ms": v, "us": v / 1000, "ns": v / 1e6}[unit]


def record(fleet, work):
    """A batch of {@code fleet} recorded; its JFR file and the CPU seconds outside the compilers."""
    home = subprocess.run(["java", "-XshowSettings:properties", "-version"], capture_output=True, text=True).stderr
    home = re.search(r"java.home = (.*)", home).group(1).strip()
    settings = open(os.path.join(home, "lib", "jfr", "profile.jfc")).read()
    settings = re.sub(r'(control="compiler-compilation-threshold">)[^<]*', r"\g<1>0 ms", settings)
    settings = re.sub(r'(control="method-sampling-java-interval">)[^<]*', r"\g<1>2 ms", settings)
    jfc, jfr = os.path.join(work, "c2.jfc"), os.path.join(work, "batch.jfr")
    open(jfc, "w").write(settings)
    env = dict(os.environ, TRAIN_ADVISOR_JAVA_OPTS=f"-XX:StartFlightRecording=filename={jfr},settings={jfc}")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([os.path.join(root, "bin", "train-advisor"), "batch", fleet, "--format", "csv", "--out",
                    os.path.join(work, "report.csv")], env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return jfr, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    n = int(args[1]) if len(args) > 1 else 40
    cpu = None
    with tempfile.TemporaryDirectory() as work:
        if os.path.isdir(args[0]):
            jfr, cpu = record(args[0], work)
        else:
            jfr = args[0]
        table(jfr, cpu, n)


def table(jfr, cpu, n):
    c2_ms, c2_count = collections.Counter(), collections.Counter()
    c1_ms = 0.0
    cur = {}
    for line in events(jfr, "jdk.Compilation").splitlines():
        line = line.strip()
        if line.startswith("jdk.Compilation"):
            cur = {}
        elif line == "}":
            if cur.get("compiler", "").strip('"') == "c1" and "duration" in cur:
                c1_ms += millis(cur["duration"])
            if cur.get("compiler", "").strip('"') == "c2" and "method" in cur:
                cls = cur["method"].split("(")[0].rsplit(".", 1)[0]
                c2_ms[cls] += millis(cur["duration"])
                c2_count[cls] += 1
        else:
            m = re.match(r"(\w+) = (.*)", line)
            if m and m.group(1) not in cur:
                cur[m.group(1)] = m.group(2)
    own, total, top = collections.Counter(), 0, None
    for line in events(jfr, "jdk.ExecutionSample", "--stack-depth", "1").splitlines():
        if line.startswith("jdk.ExecutionSample"):
            top = None
            total += 1
        else:
            m = re.match(r"\s+([\w.$<>]+)\(.*line:", line)
            if m and top is None:
                top = m.group(1)
                own[top.rsplit(".", 1)[0]] += 1
    compiled = sum(c2_ms.values()) + c1_ms
    scale = ((cpu * 1000 - compiled) / total) if cpu and total else None
    print(f"C2: {sum(c2_ms.values()):.0f} ms in {sum(c2_count.values())} compilations, C1: {c1_ms:.0f} ms; {total} samples"
          + (f"; {cpu:.1f} s of CPU" if cpu else ""))
    print(f"{'C2 ms':>7} {'n':>4} {'runs ms' if scale else 'samples %':>10}  class")
    ran = {c: own[c] * scale if scale else 100 * own[c] / max(total, 1) for c in c2_ms}
    rows = sorted(c2_ms, key=lambda c: -(c2_ms[c] - 3 * (ran[c] if scale else 0)))
    for c in rows[:n]:
        print(f"{c2_ms[c]:7.0f} {c2_count[c]:4d} {ran[c]:10.1f}  {c}")


if __name__ == "__main__":
    main()
