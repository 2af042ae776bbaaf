#!/bin/sh
# docs_run.sh - the command blocks of docs/*.md marked runnable run as
# written. A ```sh block right after a line `<!-- runnable -->` (hidden
# when the Markdown is rendered) is run line by line, as a user pastes it,
# from a scratch copy of the checkout with HOME a scratch folder and no
# terminal: one shell a page, so `cd` and variables carry over from block
# to block. Each line is checked against its trailing comment, as the
# README's tour is (tour_lib.inc): no mark is exit 0, "# exit N" is N,
# "# needs ..." only asks for a clean failure. Blocks that name
# placeholders (NAME, path/to/skill, a host of the reader's) are not
# marked; docs_commands.sh still checks that their commands and options
# exist. The README's tour is readme_tour.sh.
. "$(dirname "$0")/registry_lib.inc"
. "$(dirname "$0")/tour_lib.inc"
reg_setup
tour_clone
# The pages assume skit is installed: the build stands for it.
TOUR_PATH=$C/build:/usr/local/bin:/usr/bin:/bin

pages=0
for f in "$SKIT_SOURCE_DIR"/docs/*.md; do
	b=$(basename "$f" .md)
	tour_lines "$f" >"$T/lines.$b"
	[ -s "$T/lines.$b" ] || continue
	pages=$((pages + 1))
	tour_run "$T/lines.$b" "$T/$b"
	tour_check "$T/lines.$b" "$T/$b"
done
[ "$pages" -ge 3 ] && reg_pass || reg_fail "only $pages pages of docs/ have runnable blocks"
new=$(find "$C" -newer "$T/stamp" ! -path "$C/build" ! -path "$C" 2>/dev/null | head -n 5)
[ -z "$new" ] && reg_pass || reg_fail "the docs' commands wrote into the checkout: $new"
reg_done
