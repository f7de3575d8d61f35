"""Check the built documentation as a reader meets it.

    python -m sphinx -W --keep-going -q -b html docs /tmp/skirm-docs
    python tools/check_docs.py /tmp/skirm-docs

A clean build (``-W``) says the sources are valid reST; it does not say the
pages read right. This script reads the HTML and fails (exit status 1, one
line per defect) on what a valid build still lets through:

- a ``mailto:`` link: docutils turns ``NDCG@10`` in running text into an
  e-mail link (``docs/_ext/plain_names.py`` turns them back);
- a raw double backquote in the text of a page: markup that did not render,
  as an inline literal nested in bold;
- a page of the user guide that promises a figure and shows none: a page
  that links to a display of ``skirm.plot``, or speaks of a figure, chart,
  plot or curve "below" (or "above"), shows an image; the plotting page
  shows one for each display, named in the image's alternative text;
- an API entry whose parameter list does not match its signature: the names
  numpydoc rendered under "Parameters" are those of the signature shown
  above them (a function without the list says whose arguments it takes; a
  class without it documents its attributes; errors list none).

It needs BeautifulSoup (installed with the ``docs`` extra, through the
theme) and nothing of skirm: it reads the pages only.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup

#: Elements whose text is code, where a double backquote may be meant.
CODE = {"pre", "code", "script", "style", "textarea", "kbd", "samp", "tt"}
#: A promise of a figure in a page's prose.
PROMISE = re.compile(
    r"\b(?:figures?|charts?|plots?|curves?|pictures?)\s+(?:below|above)\b",
    re.IGNORECASE,
)
#: A docstring that lends its parameters from another function.
LENDER = re.compile(
    r"[Tt]akes the arguments of|[Tt]akes the same arguments as"
    r"|The arguments are those of"
)


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _article(soup: BeautifulSoup):
    return soup.find("article") or soup.body or soup


def mailto_links(page: str, soup: BeautifulSoup) -> list[str]:
    return [
        f"{page}: e-mail link {a.get_text()!r}"
        for a in soup.find_all("a", href=True)
        if a["href"].startswith("mailto:")
    ]


def raw_backquotes(page: str, soup: BeautifulSoup) -> list[str]:
    found = []
    for text in _article(soup).find_all(string=True):
        if "``" not in text:
            continue
        if any(parent.name in CODE for parent in text.parents):
            continue
        found.append(f"{page}: raw markup {text.strip()[:60]!r}")
    return found


def _display_names(soup: BeautifulSoup) -> set[str]:
    names = set()
    for a in _article(soup).find_all("a", href=True):
        match = re.search(r"skirm\.plot\.(\w+Display)\b", a["href"])
        if match:
            names.add(match.group(1))
    return names


def missing_figures(page: str, soup: BeautifulSoup, displays: set[str]) -> list[str]:
    if not page.startswith("user_guide/"):
        return []
    article = _article(soup)
    images = article.find_all("img")
    text = article.get_text(" ")
    promises = sorted(_display_names(soup)) + PROMISE.findall(text)
    found = []
    if promises and not images:
        found.append(f"{page}: promises a figure ({promises[0]!r}) and shows none")
    if page == "user_guide/plotting.html":
        alts = " ".join(img.get("alt", "") for img in images)
        for name in sorted(displays):
            if name not in alts:
                found.append(f"{page}: no figure of {name} (by its alt text)")
    return found


def _names(text: str) -> list[str]:
    return [name.strip().lstrip("*") for name in text.split(",") if name.strip()]


def _signature(dt) -> list[str]:
    names = []
    for param in dt.find_all("em", class_="sig-param", recursive=False):
        name = param.find(class_="n")
        if name is not None and name.get_text().strip().lstrip("*"):
            names.append(name.get_text().strip().lstrip("*"))
    return names


def _documented(dd) -> list[str] | None:
    """The names under the entry's own "Parameters" field, or None."""
    for field_list in dd.find_all("dl", class_="field-list", recursive=False):
        for dt in field_list.find_all("dt", recursive=False):
            if dt.get_text().strip().rstrip(":") != "Parameters":
                continue
            body = dt.find_next_sibling("dd").find("dl")
            names = []
            for entry in body.find_all("dt", recursive=False) if body else ():
                strong = entry.find("strong")
                if strong is not None:
                    names += _names(strong.get_text())
                else:
                    names += _names(entry.find(string=True, recursive=False) or "")
            return names
    return None


def _has_field(dd, name: str) -> bool:
    return any(
        dt.get_text().strip().rstrip(":") == name
        for field_list in dd.find_all("dl", class_="field-list", recursive=False)
        for dt in field_list.find_all("dt", recursive=False)
    )


def parameter_mismatches(page: str, soup: BeautifulSoup) -> list[str]:
    if not page.startswith("api/generated/"):
        return []
    found = []
    for entry in soup.select("dl.py"):
        kinds = set(entry.get("class", ()))
        if not kinds & {"function", "method", "class", "exception"}:
            continue
        dt = entry.find("dt", recursive=False)
        dd = entry.find("dd", recursive=False)
        if dt is None or dd is None or "exception" in kinds:
            continue
        if entry.find_parent("dl", class_="exception") is not None:
            continue  # the methods an error inherits from BaseException
        name = dt.get("id", "?")
        signature = [n for n in _signature(dt) if n not in ("self", "cls")]
        documented = _documented(dd)
        if documented is None:
            if not signature or LENDER.search(dd.get_text(" ")):
                continue
            if "class" in kinds and _has_field(dd, "Attributes"):
                continue
            found.append(f"{page}: {name} lists no parameters for {signature}")
        elif sorted(documented) != sorted(signature) and not LENDER.search(
            dd.get_text(" ")
        ):
            shown = sorted(set(documented) ^ set(signature))
            found.append(
                f"{page}: {name} parameters differ from its signature: {shown}"
            )
    return found


def check(build: Path) -> dict[str, list[str]]:
    pages = sorted(
        path
        for path in build.rglob("*.html")
        if not {"_modules", "_static", "_sources", "_images"} & set(path.parts)
    )
    soups = {str(path.relative_to(build)): _soup(path) for path in pages}
    plotting = soups.get("user_guide/plotting.html")
    prefix = "api/generated/skirm.plot."
    displays = {
        page[len(prefix) : -len(".html")]
        for page in soups
        if page.startswith(prefix) and page.endswith("Display.html")
    }
    if plotting is None or not displays:
        raise SystemExit(f"{build} does not look like a build of skirm's docs")
    defects = {"mailto": [], "backquotes": [], "figures": [], "parameters": []}
    for page, soup in soups.items():
        defects["mailto"] += mailto_links(page, soup)
        defects["backquotes"] += raw_backquotes(page, soup)
        defects["figures"] += missing_figures(page, soup, displays)
        defects["parameters"] += parameter_mismatches(page, soup)
    return defects


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    defects = check(Path(argv[0]))
    for lines in defects.values():
        for line in lines:
            print(line)
    counts = ", ".join(f"{kind} {len(lines)}" for kind, lines in defects.items())
    total = sum(len(lines) for lines in defects.values())
    print(f"check_docs: {total} defects ({counts})")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
