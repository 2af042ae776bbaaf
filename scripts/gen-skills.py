#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen-skills.py - write a synthetic, deterministic tree of skills for benchmarks.

    scripts/gen-skills.py --out DIR -n 10000 [--seed 42] [--body-bytes 8192]

Writes DIR/skills/<name>/SKILL.md for N skills, DIR/queries.txt (200 search
queries of 1-3 words drawn from the same vocabulary, a few of which match
nothing), DIR/stats.txt (total frontmatter and file bytes) and
DIR/.gen-stamp. Running it again with the same parameters is a
no-op (the stamp matches); other parameters wipe DIR/skills first.

Every SKILL.md is valid under the Agent Skills spec: a name that equals its
folder, a description of 80-400 characters made of realistic words, a
license, metadata (author, version), sometimes allowed-tools and
compatibility, and a Markdown body of about --body-bytes bytes (headings,
paragraphs, lists, a fenced code block). The same seed gives byte-identical
trees on every machine (random.Random with an int seed is stable across
Python 3 versions for the methods used here: random, randrange, randint,
choice, sample, shuffle).

Only the standard library is used.
"""

import argparse
import os
import random
import shutil
import sys
import time

STAMP_VERSION = 3

DOMAINS = """
pdf csv excel xlsx docx pptx json yaml toml xml sql postgres mysql sqlite redis
kafka kubernetes helm docker compose terraform ansible aws s3 lambda gcp azure
git github gitlab changelog release semver api openapi graphql grpc protobuf
react vue svelte angular tailwind css html svg png image video audio podcast
transcript subtitle invoice receipt contract resume email calendar meeting
slack jira confluence notion markdown latex bibtex citation dataset pandas
notebook jupyter chart dashboard metrics logs trace incident oncall runbook
security secrets dependency license sbom vulnerability test fixture benchmark
profile migration schema backup cron webhook oauth jwt certificate dns nginx
caddy systemd bash python rust golang java kotlin swift typescript node npm
pip cargo maven gradle webpack vite eslint prettier ruff mypy pytest jest
playwright selenium accessibility i18n translation glossary brand font color
palette logo slide poster newsletter blog seo sitemap analytics experiment
survey feedback ticket support faq onboarding handbook policy compliance gdpr
audit budget forecast expense payroll tax ledger inventory shipping order
catalog pricing quote proposal roadmap okr retrospective standup sprint epic
issue review commit branch monorepo codeowners terraform-state vpc firewall
""".split()

ACTIONS = """
builder converter extractor formatter linter reviewer generator analyzer
summarizer validator migrator planner writer editor exporter importer checker
auditor optimizer scaffolder tester debugger reporter translator merger
splitter sync watcher cleaner inspector explainer designer packager publisher
""".split()

VERBS = """
extract convert summarize validate generate review analyze format lint
migrate merge split translate audit optimize document refactor debug test
package publish deploy monitor profile benchmark compare classify annotate
redact anonymize normalize deduplicate reconcile schedule triage draft
""".split()

NOUNS = """
tables forms fields pages sections headings footnotes comments annotations
records rows columns schemas queries indexes migrations fixtures snapshots
dependencies packages modules functions classes tests builds pipelines jobs
workflows releases tags branches commits diffs patches reviews issues tickets
incidents alerts dashboards charts metrics logs traces spans events messages
threads channels invoices receipts contracts clauses signatures templates
slides themes colors fonts images thumbnails captions transcripts subtitles
endpoints requests responses tokens certificates secrets credentials configs
manifests charts containers images volumes clusters nodes pods services
""".split()

ADJS = """
large small nested legacy scanned encrypted multilingual partial malformed
duplicate stale noisy sparse dense structured unstructured versioned signed
unsigned compressed remote local shared private public internal external
deprecated flaky slow expensive critical sensitive regulated quarterly monthly
""".split()

SITUATIONS = [
    "asks to {v} {a} {n} in their {d} file",
    "mentions {d} {n} or wants help to {v} them",
    "needs to {v} {n} before a release",
    "is working with {d} and {d2} {n}",
    "wants a report on {a} {n}",
    "pastes {a} {n} and asks what is wrong",
    "asks how to {v} {n} from {d}",
    "is preparing {d} {n} for review",
    "wants to automate {d} {n} with {d2}",
    "asks for help with {a} {d} {n}",
]

CAPABILITIES = [
    "{Vs} {a} {n} from {d} documents and {v2s} them into {d2}.",
    "{V} and {v2} {d} {n}, keeping {a} {n2} intact.",
    "Helps {v} {n} across {d} and {d2} projects.",
    "{Vs} {d} {n} with checks for {a} {n2}.",
    "Turns {a} {d} {n} into clean {d2} {n2}.",
    "{Vs} {n}, {n2} and {n3} in {d} repositories.",
]

EXTRAS = [
    "Supports {d}, {d2} and {d3}.",
    "Works offline; no network access needed.",
    "Handles {a} inputs and reports every change it makes.",
    "Prefers small, reviewable edits over rewrites.",
    "Keeps a log of each step for later review.",
    "Falls back to plain text when {d} tools are missing.",
]

FIRST = """ada alan barbara claude dana elena farid grace hiro ines jonas kavya
lena marco nadia omar priya quentin rosa sven tomas uma victor wen yusuf zoe
chloé josé zoë""".split()
LAST = """lovelace turing liskov shannon okafor petrov nakamura garcia svensson
rossi kowalski haddad chen müller dubois novak silva tanaka brennan ito""".split()
ORGS = """acme example-org datacraft toolsmiths openworks northwind initech
globex umbrella-labs""".split()

LICENSES = ["MIT", "Apache-2.0", "BSD-3-Clause", "MPL-2.0",
            "Proprietary. LICENSE.txt has complete terms"]

TOOLS = ["Read", "Write", "Edit", "Grep", "Glob", "WebFetch",
         "Bash(git:*)", "Bash(jq:*)", "Bash(python3:*)", "Bash(npm run test:*)",
         "Bash(pdftotext:*)", "Bash(rg:*)", "Bash(make:*)"]

COMPAT = [
    "Requires python3 and network access",
    "Designed for Claude Code; works with any agent that runs bash",
    "Needs {d} installed on PATH",
    "Linux and macOS; Windows through WSL",
    "Requires git 2.30 or newer",
]

SECTION_TITLES = ["Overview", "When to use", "Inputs", "Steps", "Examples",
                  "Output format", "Edge cases", "Troubleshooting", "Notes",
                  "References"]


def third(verb):
    """The third person singular: "publish" -> "publishes"."""
    if verb.endswith(("sh", "ch", "x", "s", "z")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def fill(rng, template):
    """Fill a template's {placeholders} with random vocabulary."""
    v, v2 = rng.choice(VERBS), rng.choice(VERBS)
    return template.format(
        v=v, v2=v2, V=v.capitalize(), Vs=third(v).capitalize(),
        v2s=third(v2),
        n=rng.choice(NOUNS), n2=rng.choice(NOUNS), n3=rng.choice(NOUNS),
        a=rng.choice(ADJS), d=rng.choice(DOMAINS), d2=rng.choice(DOMAINS),
        d3=rng.choice(DOMAINS))


def clip(text, limit):
    """Cut `text` to at most `limit` characters at a word boundary."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit - 1)
    text = text[:cut if cut > 0 else limit - 1].rstrip(",;:.")
    return text + "."


def make_description(rng):
    """Whole sentences up to a random length of 80-400 characters."""
    target = rng.randint(80, 400)
    text = fill(rng, rng.choice(CAPABILITIES)) + " Use when the user " + \
        fill(rng, rng.choice(SITUATIONS)) + "."
    if len(text) > target:
        text = clip(text, max(target, 110))
    while len(text) < target:
        nxt = fill(rng, rng.choice(EXTRAS + CAPABILITIES))
        if len(text) + 1 + len(nxt) > target:
            break
        text += " " + nxt
    if len(text) < 80:  # short sentences: pad with a neutral one
        text += " Works with " + rng.choice(DOMAINS) + " files."
    return text


def make_name(rng, used):
    for _ in range(20):
        k = rng.random()
        if k < 0.35:
            name = "%s-%s" % (rng.choice(DOMAINS), rng.choice(ACTIONS))
        elif k < 0.85:
            name = "%s-%s-%s" % (rng.choice(DOMAINS), rng.choice(DOMAINS),
                                 rng.choice(ACTIONS))
        else:
            name = "%s-%s-%s" % (rng.choice(ADJS), rng.choice(DOMAINS),
                                 rng.choice(ACTIONS))
        if name not in used and len(name) <= 64:
            break
    else:
        name = "%s-%d" % (name[:50], len(used))
    while name in used:
        name = "%s-%d" % (name[:50], rng.randrange(1 << 20))
    used.add(name)
    return name


def yaml_quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def make_sentence_pool(rng, count):
    """Sentences for bodies: built once, then sampled, to keep generation fast."""
    pool = []
    for _ in range(count):
        words = []
        for _ in range(rng.randint(2, 4)):
            words.append(fill(rng, rng.choice(CAPABILITIES + EXTRAS)))
        pool.append(" ".join(words))
    return pool


def make_body(rng, name, description, pool, body_bytes):
    out = ["# " + name.replace("-", " ").title(), "", description, ""]
    size = sum(len(x) + 1 for x in out)
    titles = SECTION_TITLES[:]
    i = 0
    while size < body_bytes:
        title = titles[i % len(titles)] if i < len(titles) else \
            "%s (%d)" % (titles[i % len(titles)], i // len(titles) + 1)
        i += 1
        block = ["## " + title, ""]
        kind = i % 4
        if kind == 0:
            for _ in range(rng.randint(4, 7)):
                block.append("- " + rng.choice(pool))
        elif kind == 1:
            for k in range(rng.randint(3, 6)):
                block.append("%d. %s" % (k + 1, rng.choice(pool)))
        elif kind == 2:
            block += ["```bash",
                      "python3 scripts/%s.py --input %s.%s --out out/" %
                      (rng.choice(VERBS), rng.choice(NOUNS),
                       rng.choice(DOMAINS)),
                      "jq '.%s[] | select(.%s)' report.json" %
                      (rng.choice(NOUNS), rng.choice(ADJS)),
                      "```", "", rng.choice(pool)]
        else:
            block += [rng.choice(pool) + " " + rng.choice(pool), "",
                      rng.choice(pool)]
        block.append("")
        out += block
        size += sum(len(x) + 1 for x in block)
    return "\n".join(out)


def make_skill(rng, name, pool, body_bytes):
    desc = make_description(rng)
    fm = ["---", "name: " + name, "description: " + yaml_quote(desc),
          "license: " + rng.choice(LICENSES)]
    if rng.random() < 0.2:
        fm.append("compatibility: " + fill(rng, rng.choice(COMPAT)))
    if rng.random() < 0.3:
        fm.append("allowed-tools: " +
                  " ".join(rng.sample(TOOLS, rng.randint(1, 4))))
    if rng.random() < 0.7:
        author = "%s %s" % (rng.choice(FIRST).capitalize(),
                            rng.choice(LAST).capitalize())
    else:
        author = rng.choice(ORGS)
    fm += ["metadata:", "  author: " + yaml_quote(author),
           '  version: "%d.%d.%d"' % (rng.randint(0, 3), rng.randint(0, 20),
                                      rng.randint(0, 9))]
    fm += ["---", ""]
    return "\n".join(fm) + make_body(rng, name, desc, pool, body_bytes)


def make_queries(rng, count):
    """1-3 word queries: mostly vocabulary words, a few that match nothing."""
    queries = []
    vocab = DOMAINS + VERBS + NOUNS + ACTIONS + ADJS
    for i in range(count):
        if i % 20 == 19:
            queries.append("zzyzx%d quux" % i)  # a miss
            continue
        k = rng.randint(1, 3)
        words = [rng.choice(DOMAINS)] + [rng.choice(vocab) for _ in range(k - 1)]
        rng.shuffle(words)
        queries.append(" ".join(words))
    return queries


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("-n", type=int, required=True)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--body-bytes", type=int, default=8192)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args()

    stamp = "v%d n=%d seed=%d body=%d queries=%d\n" % (
        STAMP_VERSION, args.n, args.seed, args.body_bytes, args.queries)
    stamp_path = os.path.join(args.out, ".gen-stamp")
    skills = os.path.join(args.out, "skills")
    try:
        with open(stamp_path) as f:
            if f.read() == stamp:
                if not args.quiet:
                    print("gen-skills: %s is up to date" % args.out)
                return 0
    except OSError:
        pass

    t0 = time.monotonic()
    if os.path.exists(skills):
        shutil.rmtree(skills)
    os.makedirs(skills)
    if os.path.exists(stamp_path):
        os.unlink(stamp_path)

    rng = random.Random(args.seed)
    pool = make_sentence_pool(rng, 4000)
    used = set()
    fm_bytes = total_bytes = 0
    for _ in range(args.n):
        name = make_name(rng, used)
        d = os.path.join(skills, name)
        os.mkdir(d)
        data = make_skill(rng, name, pool, args.body_bytes).encode("utf-8")
        with open(os.path.join(d, "SKILL.md"), "wb") as f:
            f.write(data)
        fm_bytes += data.index(b"\n---\n") + 5
        total_bytes += len(data)

    with open(os.path.join(args.out, "queries.txt"), "w") as f:
        f.write("\n".join(make_queries(random.Random(args.seed + 1),
                                       args.queries)) + "\n")
    with open(os.path.join(args.out, "stats.txt"), "w") as f:
        f.write("skills=%d frontmatter_bytes=%d file_bytes=%d\n" %
                (args.n, fm_bytes, total_bytes))
    with open(stamp_path, "w") as f:
        f.write(stamp)
    if not args.quiet:
        print("gen-skills: %d skills in %s (%.1f s)" %
              (args.n, skills, time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
