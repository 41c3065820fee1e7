"""docs/README.md lists every page of docs/ once, with a line saying what it covers, and
links only pages that exist."""
import re

from tests._fresh import ROOT

DOCS = ROOT / "docs"


def _rows():
    rows = re.findall(r"^\| \[([^\]]+)\]\(([^)]+)\) \| (.+) \|$", (DOCS / "README.md").read_text(),
                      re.MULTILINE)
    return {target: text for _, target, text in rows}


def test_every_page_is_listed_once_with_a_line():
    pages = sorted(p.name for p in DOCS.glob("*.md") if p.name != "README.md")
    rows = _rows()
    assert sorted(set(pages) - set(rows)) == [], "add these pages to docs/README.md"
    assert sorted(set(rows) - set(pages)) == [], "docs/README.md links missing pages"
    assert all(len(text.split()) >= 4 for text in rows.values())
    text = (DOCS / "README.md").read_text()
    assert all(text.count("](%s)" % page) <= 2 for page in pages)  # a table row (and the intro)


def test_the_troubleshooting_page_links_only_pages_that_exist():
    links = re.findall(r"\]\(([a-z_]+\.md)\)", (DOCS / "troubleshooting.md").read_text())
    assert links and [l for l in links if not (DOCS / l).is_file()] == []
