#!/usr/bin/env python3
"""Lists the public API of a crate from its rustdoc HTML (target/doc/CRATE):
every public item (module path and kind) and, for structs, enums, unions and
traits, their inherent methods, variants, public fields and required/provided
trait methods, one per line, sorted. The committed list (docs/public-api.txt)
is compared with it by tools/run-tests.sh, so that a change of the surface is
deliberate: regenerate with `python3 tools/public-api.py target/doc/vkssim >
docs/public-api.txt` after `cargo doc`."""
import html
import re
import sys
from pathlib import Path

KINDS = {"struct", "enum", "union", "trait", "fn", "constant", "static", "type", "macro",
         "traitalias", "derive", "attr"}


def members(page: str, kind: str) -> list[str]:
    """The members rustdoc lists on an item's page (not trait impls)."""
    out = []
    for m in re.finditer(r'id="(variant|structfield)\.([A-Za-z0-9_]+)"', page):
        out.append(f"{m.group(1)} {m.group(2)}")
    if kind == "trait":
        part = page
    else:
        start = page.find('id="implementations-list"')
        if start < 0:
            return sorted(set(out))
        ends = [page.find(t, start) for t in ('id="trait-implementations',
                                               'id="synthetic-implementations',
                                               'id="blanket-implementations')]
        ends = [e for e in ends if e > 0]
        part = page[start:min(ends)] if ends else page[start:]
    for m in re.finditer(r'id="(method|tymethod|associatedconstant|associatedtype)\.([A-Za-z0-9_]+)"', part):
        out.append(f"{m.group(1)} {m.group(2)}")
    return sorted(set(out))


def main(root: Path) -> None:
    allpage = (root / "all.html").read_text()
    lines = []
    for href, name in re.findall(r'<li><a href="([^"]+)">([^<]+)</a></li>', allpage):
        kind = Path(href).name.split(".")[0]
        if kind not in KINDS:
            continue
        name = html.unescape(name)
        lines.append(f"{kind} {name}")
        if kind in ("struct", "enum", "union", "trait"):
            page = (root / href).read_text()
            lines.extend(f"{kind} {name} {m}" for m in members(page, kind))
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
