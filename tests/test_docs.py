"""The repository's text holds up in a fresh clone: no paths of one machine, every relative
link of the Markdown files reaches a file, and every citation of a rules page
(``docs/rules/<page>.md#anchor``, in code or docs) names a heading of that page."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TEXT = (".md", ".py", ".yaml", ".toml", ".txt", ".cfg")


def tracked(*suffixes: str) -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    return [REPO / n for n in names if n.endswith(suffixes) or n == ".ci/run"]


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a Markdown page's headings: lower case, punctuation dropped,
    spaces to hyphens, repeats numbered."""
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#+ (.+)$", page.read_text(), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


def test_no_absolute_paths_of_a_machine():
    machine = re.compile("|".join(re.escape(p) for p in ("/" + "work/", "/" + "root/", "/" + "home/")))
    hits = [f"{path.relative_to(REPO)}:{n}" for path in tracked(*TEXT)
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1) if machine.search(line)]
    assert hits == []


@pytest.mark.parametrize("page", tracked(".md"), ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_reach_a_file_and_heading(page: Path):
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
        if re.match(r"[a-z]+:", target):  # a web address
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.exists(), f"{page.relative_to(REPO)}: broken link {target}"
        if anchor and file.suffix == ".md":
            assert anchor in anchors(file), f"{page.relative_to(REPO)}: no heading for {target}"


def test_rules_citations_name_a_heading_of_their_page():
    citations = {(m.group(1), m.group(2)) for path in tracked(*TEXT)
                 for m in re.finditer(r"docs/rules/(\w+\.md)#([\w-]+)", path.read_text(errors="replace"))}
    assert citations, "nothing cites the rules pages"
    rules = REPO / "docs" / "rules"
    missing = [f"{page}#{anchor}" for page, anchor in sorted(citations)
               if not (rules / page).exists() or anchor not in anchors(rules / page)]
    assert missing == []
