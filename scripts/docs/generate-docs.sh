#!/usr/bin/env bash
# Writes noti-play's man page and shell completions from the command's own definition (its
# options, help texts and discussions), so that they cannot drift from it:
#
#   scripts/docs/generate-docs.sh BINARY OUTDIR
#
# BINARY  a built noti-play (e.g. .build/debug/noti-play)
# OUTDIR  receives noti-play.1 (made by swift-argument-parser's generate-manual tool) and the
#         completion scripts noti-play's --generate-completion-script prints: noti-play.bash,
#         _noti-play (zsh) and noti-play.fish
#
# generate-manual is built from the swift-argument-parser that SwiftPM resolved for this package
# (its own cache: no network needed once `swift build` has run), in .build-docs, so that a
# running `swift test`'s lock on .build does not matter. SOURCE_DATE_EPOCH, when set, dates the
# page (reproducible builds); otherwise today.
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: scripts/docs/generate-docs.sh BINARY OUTDIR" >&2
    exit 64
fi
binary=$(realpath "$1")
mkdir -p "$2"
outdir=$(realpath "$2")
cd "$(dirname "$0")/../.."

scratch=.build-docs
swift package --scratch-path "$scratch" resolve >&2
parser="$scratch/checkouts/swift-argument-parser"
swift build --package-path "$parser" --scratch-path "$scratch/generate-manual" --product generate-manual >&2
tool="$(swift build --package-path "$parser" --scratch-path "$scratch/generate-manual" --show-bin-path)/generate-manual"

date_option=()
[ -z "${SOURCE_DATE_EPOCH:-}" ] || date_option=(--date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)")
"$tool" "$binary" "${date_option[@]}" --output-directory "$outdir"
[ -s "$outdir/noti-play.1" ] || { echo "generate-docs.sh: generate-manual wrote no noti-play.1" >&2; exit 1; }
# generate-manual copies a discussion's blank lines (its paragraphs) as they are; mdoc wants .Pp
# there, and man(1) warns about every empty line.
# And it writes the synopsis as `noti-play subcommand [file] ...` (a subcommand is optional only
# for a root with a default subcommand); noti-play's root plays FILE itself.
sed -i -e 's/^$/.Pp/' -e 's/^\.Ar subcommand$/.Op Ar subcommand/' "$outdir/noti-play.1"
# The discussion's EXIT STATUS, FILES, ENVIRONMENT, EXAMPLES and SEE ALSO paragraphs become the
# page's sections.
version=$("$binary" --version)
python3 scripts/docs/shape-manual.py "$outdir/noti-play.1" "${version#noti-play }"

# Without the script's #!/bin/bash: bash-completion sources the file, never runs it (lintian's
# bash-completion-with-hashbang).
# The root's FILE is left out of the completions (see CompletionRoot in NotiPlay.swift), so
# where nothing else completes, bash and fish offer file names (`noti-play Sounds/def<TAB>`).
"$binary" --generate-completion-script bash | sed -e '1{/^#!/d}' \
    -e 's/^complete -o filenames -F _noti-play noti-play$/complete -o filenames -o default -F _noti-play noti-play/' \
    > "$outdir/noti-play.bash"
grep -q -- '-o default -F _noti-play' "$outdir/noti-play.bash" || { echo "generate-docs.sh: the bash completion's complete line changed" >&2; exit 1; }
"$binary" --generate-completion-script zsh > "$outdir/_noti-play"
{
    "$binary" --generate-completion-script fish
    echo "complete -c 'noti-play' -n 'not __fish_seen_subcommand_from info convert check listen play help' -F"
} > "$outdir/noti-play.fish"
