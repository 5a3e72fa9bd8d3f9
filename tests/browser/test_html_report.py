#!/usr/bin/env python3
"""Browser test of the HTML report (ctest: report.browser), in headless Chromium.

1. `ptxbench report FIXTURES --format json` and `--format html` over the same fixtures.
2. Chromium opens the page at #render-check and dumps the DOM (--dump-dom). In that mode the page
   writes <pre id="render-check"> holding what each Plotly graph holds, read back from Plotly's own
   graph objects (gd.data), every error the page logged (window.onerror and console.error are hooked
   before any other script), and the turns its drill-down rendered for the first trajectory.
3. Every plot must hold exactly the data the JSON format gives; no error may be logged, neither in
   the page nor as a CONSOLE line on Chromium's stderr.
4. A screenshot is kept as a test artifact (ARTIFACTS/report.png).
The comparison is itself checked to fail on altered data, so this test can fail.
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOL = 1e-9


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=kw.pop("timeout", 120), **kw)
    if p.returncode != 0:
        fail(" ".join(cmd) + " exited " + str(p.returncode) + ":\n" + p.stderr[-3000:])
    return p


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    fail("no chromium on PATH: scripts/setup.sh installs Debian's chromium package")


def chromium_args(chromium, profile):
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
            "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"]


def rows(report, name):
    for t in report["tables"]:
        if t["name"] == name:
            return t["rows"]
    return []


def expected_plots(report):
    """What each plot must hold, from the JSON format's tables (the page's documented mapping)."""
    groups = [r["group"] for r in rows(report, "coverage")]
    budget = report["meta"]["budgets"][-1]
    by = lambda name, g: [r for r in rows(report, name) if r["group"] == g]
    out = {}
    for pid, metric in (("plot-fastp", "fast_p"), ("plot-fastp-inst", "fastp_inst")):
        out[pid] = []
        for g in groups:
            rs = [r for r in by("fast_p", g) if r["budget"] == budget and r["metric"] == metric]
            out[pid].append({"name": g, "x": [r["p"] for r in rs], "y": [r["rate"] for r in rs]})
    # The page shows the first group that has transitions.
    first = next((g for g in groups if by("transitions", g)), groups[0])
    tr = by("transitions", first)
    present = {r["from"] for r in tr} | {r["to"] for r in tr}
    states = [s for s in report["meta"]["transition_states"] if s in present]
    count = {(r["from"], r["to"]): r["count"] for r in tr}
    out["plot-transitions"] = [{"name": None, "x": states, "y": states,
                                "z": [[count.get((a, b), 0) for b in states] for a in states]}]
    out["plot-speedups"] = [{"name": g, "y": [r["speedup"] for r in by("speedups", g)]} for g in groups]
    out["plot-correctness-turn"] = []
    for g in groups:
        rs = by("correctness_by_turn", g)
        x = [r["turn"] for r in rs]
        out["plot-correctness-turn"].append({"name": g + " (target)", "x": x, "y": [r["target_rate"] for r in rs]})
        out["plot-correctness-turn"].append({"name": g + " (correct)", "x": x, "y": [r["correct_rate"] for r in rs]})
    out["plot-reasoning"] = []
    for g in groups:
        rs = by("reasoning", g)
        unit = rs[0]["unit"] if rs else ""
        out["plot-reasoning"].append({"name": g + " (" + unit + ")", "x": [r["turn"] for r in rs], "y": [r["mean"] for r in rs]})
    return out


def same(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return abs(a - b) <= TOL * max(1.0, abs(a), abs(b))
    return a == b


def compare(check, expected):
    """Mismatches between the plots the page holds and the expected data ([] when none)."""
    problems = []
    for pid, traces in expected.items():
        got = check["plots"].get(pid)
        if got is None:
            problems.append(pid + ": no such plot on the page")
            continue
        if not got["rendered"]:
            problems.append(pid + ": Plotly did not render it")
        if len(got["traces"]) != len(traces):
            problems.append("%s: %d traces, expected %d" % (pid, len(got["traces"]), len(traces)))
            continue
        for i, (g, e) in enumerate(zip(got["traces"], traces)):
            for key, value in e.items():
                if not same(g.get(key), value):
                    problems.append("%s trace %d %s: page holds %s, JSON gives %s" % (pid, i, key, json.dumps(g.get(key))[:200],
                                                                                    json.dumps(value)[:200]))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxbench", required=True)
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    chromium = find_chromium()
    os.makedirs(a.artifacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="ptxbench-browser-")
    try:
        page = os.path.join(a.artifacts, "report.html")
        report = json.loads(run([a.ptxbench, "report", *a.inputs, "--format", "json"]).stdout)
        run([a.ptxbench, "report", *a.inputs, "--format", "html", "--out", page])
        url = "file://" + os.path.abspath(page)
        p = run(chromium_args(chromium, os.path.join(work, "p1")) + ["--dump-dom", url + "#render-check"], timeout=180)
        m = re.search(r'<pre id="render-check"[^>]*>(.*?)</pre>', p.stdout, re.S)
        if not m:
            fail("the page wrote no render check (did its script stop?); stderr:\n" + p.stderr[-3000:])
        check = json.loads(html.unescape(m.group(1)))
        console = [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
        if check["errors"] or console:
            fail("the page logged errors:\n" + "\n".join(check["errors"] + console))
        expected = expected_plots(report)
        problems = compare(check, expected)
        if problems:
            fail("plots differ from the JSON format:\n" + "\n".join(problems))
        # The comparison must notice a wrong number, a missing trace and a missing plot.
        altered = json.loads(json.dumps(expected))
        altered["plot-fastp"][0]["y"][0] = (altered["plot-fastp"][0]["y"][0] or 0) + 0.5
        if not compare(check, altered):
            fail("the comparison did not notice an altered fast_p value")
        altered = json.loads(json.dumps(expected))
        altered["plot-reasoning"].append({"name": "extra", "y": []})
        altered["plot-none"] = []
        if len(compare(check, altered)) != 2:
            fail("the comparison did not notice a missing trace and a missing plot")
        trajectories = rows(report, "trajectories")
        if check["trajectories_rendered"] != min(500, len(trajectories)):
            fail("drill-down shows %d trajectory rows, expected %d" % (check["trajectories_rendered"], min(500, len(trajectories))))
        first = trajectories[check["first_trajectory_index"]]
        if check["first_trajectory_turns"] != first["turns_stored"]:
            fail("drill-down of trajectory %s opened %s turns, expected %d" % (check["first_trajectory_index"],
                                                                            check["first_trajectory_turns"], first["turns_stored"]))
        problem = trajectories[0]["trajectory_problem"]
        want = min(500, sum(1 for t in trajectories if t["trajectory_problem"] == problem))
        if check["filter"] != {"problem": problem, "rows": want}:
            fail("filtering by problem %s shows %s, expected %d rows" % (problem, check["filter"], want))
        best = sorted((t["best_speedup"] for t in trajectories if t["best_speedup"] is not None), reverse=True)[:3]
        if not same(check["sorted_first"], best):
            fail("sorting by best speedup puts %s first, expected %s" % (check["sorted_first"], best))
        shot = os.path.join(a.artifacts, "report.png")
        if os.path.exists(shot):
            os.remove(shot)
        run(chromium_args(chromium, os.path.join(work, "p2")) + ["--screenshot=" + shot, "--window-size=1400,2600", url], timeout=180)
        if not os.path.exists(shot) or os.path.getsize(shot) < 20000:
            fail("no screenshot at " + shot)
        n = sum(len(t) for t in expected.values())
        print("ok: %d plots, %d traces match the JSON format; no console errors; render %.0f ms; screenshot %s"
              % (len(expected), n, check["render_ms"], shot))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
