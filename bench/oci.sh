#!/bin/sh
# SPDX-License-Identifier: MIT
# oci.sh - push and install of a 500-skill pack through a local
# docker-registry (distribution), next to skopeo moving the same artifact
# in the same run (docs/bench.md, "OCI registries").
#
#	bench/oci.sh [BUILD_DIR [ROUNDS]]
#
# Makes 500 skills (SKILL.md, scripts/run.sh, references/notes.md of
# ~2 KiB varied text, like bench_install), packs them, starts
# docker-registry on 127.0.0.1 (storage under a temporary folder), then
# for ROUNDS rounds (default 5), each to a fresh repository so that no
# blob is already there, times:
#   push:     skit push --plain-http pack oci://REG/rN/skills:v1
#   skopeo up: skopeo copy oci:LAYOUT:v1 docker://REG/sN/skills:v1 (the
#             same artifact, from an OCI layout on disk)
#   install:  skit install --plain-http --root FRESH oci://REG/rN/skills:v1
#   skopeo down: skopeo copy docker://REG/rN/skills:v1 oci:FRESH:v1
#   zip install: skit install --root FRESH pack.zip (what an install
#             costs without the registry: the pull's own cost is the
#             difference)
# and prints the medians and the ratios skit / skopeo. Which of each pair
# goes first alternates. Without docker-registry or skopeo it says so and
# exits 0.
set -u
B=${1:-build}
ROUNDS=${2:-5}
SKIT=$(cd "$B" && pwd)/skit
for t in docker-registry skopeo python3 curl; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "bench/oci.sh: $t not installed (scripts/install-deps.sh); nothing measured"
		exit 0
	}
done
D=$(mktemp -d "${TMPDIR:-/tmp}/skit-bench-oci.XXXXXX")
REGPID=""
trap '[ -n "$REGPID" ] && kill $REGPID 2>/dev/null; rm -rf "$D"' EXIT INT TERM

python3 - "$D/src" <<'EOF'
import os, random, sys
root = sys.argv[1]
r = random.Random(42)
words = "alpha beta gamma delta table column report parse summary field value row sheet chart".split()
for i in range(500):
    d = os.path.join(root, "skill-%03d" % i)
    os.makedirs(os.path.join(d, "scripts"))
    os.makedirs(os.path.join(d, "references"))
    with open(os.path.join(d, "SKILL.md"), "w") as f:
        f.write("---\nname: skill-%03d\ndescription: Bench skill %d. Use when asked about item %d.\n"
                "metadata:\n  version: \"1.%d\"\n---\n# Skill %d\n\nRun scripts/run.sh, then read "
                "references/notes.md.\n" % (i, i, i, i, i))
    p = os.path.join(d, "scripts", "run.sh")
    with open(p, "w") as f:
        f.write("#!/bin/sh\n# bench script %d\n" % i + "echo step\n" * 28)
    os.chmod(p, 0o755)
    with open(os.path.join(d, "references", "notes.md"), "w") as f:
        out = []
        n = 0
        while n < 2048:
            w = r.choice(words) + str(r.randrange(1000))
            out.append(w)
            n += len(w) + 1
        f.write(" ".join(out) + "\n")
EOF
"$SKIT" pack -o "$D/pack.zip" "$D"/src/* >/dev/null || exit 1

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$D/reg.yml" <<EOF
version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $D/store
http:
  addr: 127.0.0.1:$port
EOF
docker-registry serve "$D/reg.yml" >"$D/reg.log" 2>&1 &
REGPID=$!
REG=127.0.0.1:$port
i=0
until curl -s -o /dev/null --noproxy '*' "http://$REG/v2/"; do
	sleep 0.2
	i=$((i + 1))
	[ $i -gt 150 ] && { echo "bench/oci.sh: the registry did not start"; exit 1; }
done

# The artifact as an OCI layout, for skopeo's upload.
"$SKIT" push --plain-http "$D/pack.zip" "oci://$REG/seed/skills:v1" >/dev/null || exit 1
skopeo copy -q --src-tls-verify=false "docker://$REG/seed/skills:v1" "oci:$D/layout:v1" || exit 1

now() { python3 -c 'import time; print("%.6f" % time.monotonic())'; }
# t CMD...: run CMD (output dropped), print its wall time in ms.
t() {
	a=$(now)
	"$@" >/dev/null 2>"$D/last.err" || { echo "bench/oci.sh: failed: $* : $(cat "$D/last.err")" >&2; exit 1; }
	b=$(now)
	python3 -c "print('%.1f' % (($b - $a) * 1000))"
}

push_skit() { "$SKIT" push --plain-http "$D/pack.zip" "oci://$REG/r$1/skills:v1"; }
push_skopeo() { skopeo copy -q --dest-tls-verify=false "oci:$D/layout:v1" "docker://$REG/s$1/skills:v1"; }
pull_skit() { "$SKIT" install --plain-http --root "$D/inst$1" "oci://$REG/r$1/skills:v1"; }
zip_skit() { "$SKIT" install --root "$D/zip$1" "$D/pack.zip"; }
pull_skopeo() { skopeo copy -q --src-tls-verify=false "docker://$REG/r$1/skills:v1" "oci:$D/down$1:v1"; }

# Warm-up (untimed): round 0.
push_skit 0 >/dev/null && push_skopeo 0 >/dev/null && pull_skit 0 >/dev/null &&
	pull_skopeo 0 >/dev/null && zip_skit 0 >/dev/null

printf 'pack: %s bytes, 500 skills, 1500 files\n' "$(wc -c <"$D/pack.zip" | tr -d ' ')"
printf '%-6s %10s %12s %10s %13s %14s\n' round push_ms skopeo_up_ms install_ms skopeo_down_ms zip_install_ms
: >"$D/rows"
r=1
while [ $r -le "$ROUNDS" ]; do
	if [ $((r % 2)) -eq 1 ]; then
		p=$(t push_skit $r); pu=$(t push_skopeo $r)
		i=$(t pull_skit $r); pd=$(t pull_skopeo $r)
	else
		pu=$(t push_skopeo $r); p=$(t push_skit $r)
		pd=$(t pull_skopeo $r); i=$(t pull_skit $r)
	fi
	z=$(t zip_skit $r)
	printf '%-6s %10s %12s %10s %13s %14s\n' "$r" "$p" "$pu" "$i" "$pd" "$z"
	echo "$p $pu $i $pd $z" >>"$D/rows"
	rm -rf "$D/inst$r" "$D/down$r" "$D/zip$r"
	r=$((r + 1))
done
python3 - "$D/rows" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
m = [statistics.median(c) for c in zip(*rows)]
print("median: push %.1f ms, skopeo up %.1f ms (push/skopeo %.2fx); "
      "install %.1f ms, skopeo down %.1f ms (install/skopeo %.2fx); "
      "the same pack installed from a local file %.1f ms "
      "(so the pull itself costs %.1f ms)"
      % (m[0], m[1], m[0] / m[1], m[2], m[3], m[2] / m[3], m[4], m[2] - m[4]))
EOF
