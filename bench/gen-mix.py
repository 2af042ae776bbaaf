#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen-mix.py - a synthetic "real-world mix" of skills over many roots.

    bench/gen-mix.py --out DIR [-n 3500] [--roots 700] [--seed 7]

Writes N skills spread evenly over R roots, DIR/roots/rNNN/<folder>/SKILL.md,
with the frontmatter patterns that public skill collections show, in these
shares of the N skills (each an exact count, round(share * N), drawn
without replacement; the patterns other than "no frontmatter" overlap as
they do in real collections):

    flow      30%   YAML flow collections: `metadata: {"clawdbot": {...}}`,
                    `requires:` with `mcp: [rube]`, `allowed-tools: [...]`,
                    `tags: [a, b]`
    rename     6.5% `name` differs from the folder (version suffix, org
                    prefix, short alias)
    oddname    3%   `name` with uppercase, spaces, `_`, `:` or `/`
    colon      1%   an unquoted `: ` inside a plain `description`
    nofm       4%   no frontmatter at all (only a Markdown body)
    lists     10%   block-list `allowed-tools`, `metadata` with nested maps,
                    dates, numbers, or an empty `metadata:`
    client    20%   fields clients use: argument-hint, user-invocable,
                    disable-model-invocation, when_to_use, model, effort,
                    context, agent, hooks, paths, disallowed-tools,
                    version, author, tags

The rest is plain, valid under the spec. Bodies are 1-16 KiB of Markdown
(real skills are smaller than gen-skills.py's 8 KiB on average: mean about
5 KiB). The vocabulary is scripts/gen-skills.py's. Also writes
DIR/roots.txt (one absolute root a line), DIR/config.json (`{"roots":
{"user": [...]}}`, for `skit --config`), DIR/stats.txt (the count of each
pattern) and DIR/.gen-stamp; the same parameters and seed give the same
bytes, and running again with them is a no-op.
"""

import argparse
import importlib.util
import json
import os
import random
import shutil
import sys
import time

STAMP_VERSION = 1

SHARES = [  # (pattern, share of all skills)
    ("nofm", 0.04),
    ("flow", 0.30),
    ("rename", 0.065),
    ("oddname", 0.03),
    ("colon", 0.01),
    ("lists", 0.10),
    ("client", 0.20),
]


def load_vocabulary():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "scripts", "gen-skills.py")
    spec = importlib.util.spec_from_file_location("gen_skills", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


G = load_vocabulary()


def assign(rng, n):
    """Pattern name -> set of skill indices, exact counts."""
    sets = {}
    everyone = list(range(n))
    nofm = set(rng.sample(everyone, round(SHARES[0][1] * n)))
    sets["nofm"] = nofm
    rest = [i for i in everyone if i not in nofm]
    for pattern, share in SHARES[1:]:
        sets[pattern] = set(rng.sample(rest, min(len(rest), round(share * n))))
    return sets


def odd_name(rng, name):
    words = name.split("-")
    k = rng.randrange(5)
    if k == 0:
        return " ".join(w.capitalize() for w in words)  # "Pdf Tools"
    if k == 1:
        return "%s::%s" % (words[0], "-".join(words[1:]) or words[0])
    if k == 2:
        return "_".join(words)
    if k == 3:
        return "%s/%s" % (rng.choice(G.ORGS), name)
    return name.upper() if rng.random() < 0.5 else name.capitalize()


def rename_folder(rng, name):
    """A folder other than the name: version suffix, org prefix, alias."""
    k = rng.randrange(3)
    if k == 0:
        return "%s-v%d" % (name, rng.randint(1, 4))
    if k == 1:
        return "%s-%s" % (rng.choice(G.ORGS), name)
    words = name.split("-")
    return "".join(w[0] for w in words) + "-" + words[-1]


def flow_lines(rng, taken):
    """One flow-collection field whose key is not in `taken`."""
    choices = []
    if "metadata" not in taken:
        choices += ["meta", "requires"]
    if "allowed-tools" not in taken:
        choices.append("tools")
    if "tags" not in taken:
        choices.append("tags")
    k = rng.choice(choices)
    if k == "meta":
        taken.add("metadata")
        return ['metadata: {"clawdbot": {"emoji": "%s", "requires": '
                '{"bins": ["%s"]}}}' % (rng.choice("*+#@!"),
                                        rng.choice(G.DOMAINS))]
    if k == "requires":
        taken.add("metadata")
        return ["metadata:", "  requires:",
                "    mcp: [%s]" % ", ".join(rng.sample(G.DOMAINS, 2))]
    if k == "tools":
        taken.add("allowed-tools")
        return ["allowed-tools: [%s]" %
                ", ".join(rng.sample(["Read", "Grep", "Glob", "Write",
                                      "Edit", "WebFetch"], 2))]
    taken.add("tags")
    return ["tags: [%s]" % ", ".join(rng.sample(G.DOMAINS, 2))]


def list_lines(rng, taken):
    """Block-list allowed-tools, or a metadata with nested maps, dates,
    numbers, or nothing."""
    k = rng.randrange(4)
    if k == 0 and "allowed-tools" not in taken:
        taken.add("allowed-tools")
        return ["allowed-tools:"] + ["  - " + t for t in
                                     rng.sample(G.TOOLS[:6], 3)]
    taken.add("metadata")
    if k == 1:
        return ["metadata:", "  author:", "    name: %s" %
                rng.choice(G.FIRST).capitalize(),
                "    org: %s" % rng.choice(G.ORGS)]
    if k == 2:
        return ["metadata:", "  version: %d.%d" % (rng.randint(0, 3),
                                                    rng.randint(0, 9)),
                "  updated: 2025-%02d-%02d" % (rng.randint(1, 12),
                                               rng.randint(1, 28)),
                "  stars: %d" % rng.randint(0, 900)]
    return ["metadata:"]


CLIENT = ["argument-hint", "user-invocable", "disable-model-invocation",
          "when_to_use", "model", "effort", "context", "agent", "hooks",
          "paths", "disallowed-tools", "version", "author", "tags"]


def client_lines(rng, taken):
    out = []
    for key in rng.sample(CLIENT, rng.randint(1, 3)):
        if key in taken:
            continue
        taken.add(key)
        if key == "argument-hint":
            out.append('argument-hint: "[%s] [--%s]"' %
                       (rng.choice(G.NOUNS), rng.choice(G.VERBS)))
        elif key in ("user-invocable", "disable-model-invocation"):
            out.append("%s: %s" % (key, rng.choice(["true", "false"])))
        elif key == "when_to_use":
            out.append("when_to_use: When the user " +
                       G.fill(rng, rng.choice(G.SITUATIONS)))
        elif key == "model":
            out.append("model: " + rng.choice(["sonnet", "haiku", "opus",
                                               "inherit"]))
        elif key == "effort":
            out.append("effort: " + rng.choice(["low", "medium", "high"]))
        elif key == "context":
            out.append("context: fork")
        elif key == "agent":
            out.append("agent: " + rng.choice(["general-purpose", "Explore",
                                               "Plan"]))
        elif key == "hooks":
            out += ["hooks:", "  PostToolUse:", "    - matcher: Edit",
                    "      hooks:", "        - type: command",
                    "          command: ./scripts/%s.sh" %
                    rng.choice(G.VERBS)]
        elif key == "paths":
            out += ["paths:", '  - "src/**/*.%s"' %
                    rng.choice(["py", "ts", "go", "rs"])]
        elif key == "disallowed-tools":
            out.append("disallowed-tools: Bash(rm:*) WebFetch")
        elif key == "version":
            out.append('version: "%d.%d.%d"' % (rng.randint(0, 3),
                                                rng.randint(0, 20),
                                                rng.randint(0, 9)))
        elif key == "author":
            out.append("author: %s %s" % (rng.choice(G.FIRST).capitalize(),
                                          rng.choice(G.LAST).capitalize()))
        else:
            out += ["tags:"] + ["  - " + d for d in rng.sample(G.DOMAINS, 2)]
    return out


def make_skill(rng, i, name, sets, pool):
    """(folder, text) of skill i."""
    desc = G.make_description(rng)
    folder = rename_folder(rng, name) if i in sets["rename"] else name
    body = G.make_body(rng, name, desc, pool, rng.choice(
        [1024, 2048, 3072, 4096, 4096, 6144, 8192, 12288, 16384]))
    if i in sets["nofm"]:
        return folder, body
    shown = odd_name(rng, name) if i in sets["oddname"] else name
    if i in sets["colon"]:
        d = "description: Use this: " + desc.replace(": ", " - ")
    else:
        d = "description: " + G.yaml_quote(desc)
    fm = ["---", "name: " + shown, d]
    taken = set()
    extra = []
    if i in sets["lists"]:
        extra += list_lines(rng, taken)
    if i in sets["flow"]:
        extra += flow_lines(rng, taken)
    if i in sets["client"]:
        extra += client_lines(rng, taken)
    if rng.random() < 0.5:
        fm.append("license: " + rng.choice(G.LICENSES))
    fm += extra
    if "metadata" not in taken and rng.random() < 0.5:
        fm += ["metadata:", '  author: "%s"' % rng.choice(G.ORGS)]
    fm += ["---", ""]
    return folder, "\n".join(fm) + body


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("-n", type=int, default=3500)
    ap.add_argument("--roots", type=int, default=700)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args()
    if args.n < 1 or args.roots < 1 or args.roots > args.n:
        ap.error("need 1 <= --roots <= -n")

    out = os.path.abspath(args.out)
    stamp = "v%d n=%d roots=%d seed=%d\n" % (STAMP_VERSION, args.n,
                                             args.roots, args.seed)
    stamp_path = os.path.join(out, ".gen-stamp")
    top = os.path.join(out, "roots")
    try:
        with open(stamp_path) as f:
            if f.read() == stamp:
                if not args.quiet:
                    print("gen-mix: %s is up to date" % out)
                return 0
    except OSError:
        pass

    t0 = time.monotonic()
    if os.path.exists(top):
        shutil.rmtree(top)
    if os.path.exists(stamp_path):
        os.unlink(stamp_path)
    rng = random.Random(args.seed)
    pool = G.make_sentence_pool(rng, 2000)
    sets = assign(rng, args.n)
    roots = [os.path.join(top, "r%03d" % r) for r in range(args.roots)]
    for r in roots:
        os.makedirs(r)
    used, folders = set(), set()
    for i in range(args.n):
        name = G.make_name(rng, used)
        folder, text = make_skill(rng, i, name, sets, pool)
        while folder in folders:  # a renamed folder met another skill's
            folder += "-x"
        folders.add(folder)
        d = os.path.join(roots[i % args.roots], folder)
        os.mkdir(d)
        with open(os.path.join(d, "SKILL.md"), "wb") as f:
            f.write(text.encode("utf-8"))

    with open(os.path.join(out, "roots.txt"), "w") as f:
        f.write("\n".join(roots) + "\n")
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump({"roots": {"user": roots}}, f, indent=1)
        f.write("\n")
    with open(os.path.join(out, "stats.txt"), "w") as f:
        f.write("skills=%d roots=%d %s\n" % (
            args.n, args.roots,
            " ".join("%s=%d" % (p, len(sets[p])) for p, _ in SHARES)))
    with open(stamp_path, "w") as f:
        f.write(stamp)
    if not args.quiet:
        print("gen-mix: %d skills over %d roots in %s (%.1f s)" %
              (args.n, args.roots, top, time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
