#!/usr/bin/env python3
"""Gives the man page generate-manual writes the sections a man page has (scripts/docs/generate-docs.sh
runs it on noti-play.1, in place).

generate-manual puts the whole discussion of the root command into DESCRIPTION and follows it
with the options, then its own generic EXIT STATUS. noti-play's discussion (NotiPlay.manual in
Sources/NotiPlayCommand/NotiPlay.swift) marks its paragraphs "EXIT STATUS:", "FILES:",
"ENVIRONMENT:", "EXAMPLES:" and "SEE ALSO:"; here each becomes its section, after the options and
in the order man-pages(7) gives, and the generic one goes. Also: two synopsis lines (noti-play
FILE [options], noti-play SUBCOMMAND ...), the description line without quotes, and the
version in the footer instead of "BSD".

  scripts/docs/shape-manual.py PAGE VERSION
"""
import re, sys

SECTIONS = ["ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "SEE ALSO"]


def main(path, version):
    lines = open(path, encoding="ascii").read().split("\n")

    def fail(why):
        sys.exit(f"shape-manual.py: {path}: {why}")

    # The marked paragraphs: from "NAME:" to the next .Pp or .Bl.
    moved = {}
    index = 0
    while index < len(lines):
        match = re.match(r"^(%s):(.*)$" % "|".join(SECTIONS), lines[index])
        if not match:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end] not in (".Pp",) and not lines[end].startswith(".Bl"):
            end += 1
        body = [match.group(2).strip()] + lines[index + 1:end]
        moved[match.group(1)] = [line for line in body if line != ""]
        # The paragraph and the .Pp before it go.
        start = index - 1 if index > 0 and lines[index - 1] == ".Pp" else index
        del lines[start:end]
        index = start
    missing = [name for name in SECTIONS if name not in moved]
    if missing:
        fail("no %s paragraph in the discussion" % ", ".join(missing))

    # generate-manual's generic EXIT STATUS (".Sh \"EXIT STATUS\"" then ".Ex -std").
    try:
        generic = lines.index('.Sh "EXIT STATUS"')
    except ValueError:
        fail("no generic EXIT STATUS section to replace")
    del lines[generic:generic + 2]

    # The options list: the first list after DESCRIPTION's text.
    description = lines.index(".Sh DESCRIPTION")
    first_list = next(i for i in range(description, len(lines)) if lines[i].startswith(".Bl"))
    lines[first_list:first_list] = [".Sh OPTIONS AND SUBCOMMANDS"]

    # The sections, at the end.
    while lines and lines[-1] == "":
        lines.pop()
    for name in SECTIONS:
        body = moved[name]
        lines.append('.Sh "%s"' % name if " " in name else ".Sh " + name)
        if name == "EXAMPLES":
            lines.append(".Bd -literal -offset indent")
            lines.extend(line.strip() for line in body if line.strip())
            lines.append(".Ed")
        elif name == "SEE ALSO":
            pages = re.findall(r"([a-z][a-z0-9_-]*)\((\d)\)", " ".join(body))
            if not pages:
                fail("SEE ALSO names no page")
            for number, (page, section) in enumerate(pages):
                lines.append(".Xr %s %s%s" % (page, section, " ," if number < len(pages) - 1 else ""))
        else:
            lines.extend(body)
    lines.append("")

    # Synopsis: `noti-play [file] [options]`, then `noti-play subcommand ...`.
    try:
        subcommand = lines.index(".Op Ar subcommand")
    except ValueError:
        fail("no '.Op Ar subcommand' in the synopsis")
    del lines[subcommand]
    synopsis_end = lines.index(".Sh DESCRIPTION")
    lines[synopsis_end:synopsis_end] = [".Nm", ".Ar subcommand", ".Op Ar arguments"]

    text = "\n".join(lines)
    text = re.sub(r'^\.Nd "(.*)"$', r".Nd \1", text, flags=re.M)
    text = re.sub(r"^\.Os$", '.Os "noti-play %s"' % version, text, flags=re.M)
    open(path, "w", encoding="ascii").write(text)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: scripts/docs/shape-manual.py PAGE VERSION")
    main(sys.argv[1], sys.argv[2])
