"""Every chapter opens with a correct "Run this chapter" note (tests/install_note.py)."""

from __future__ import annotations

import importlib.metadata as md
import json
import sysconfig
from pathlib import Path

import install_note
import pytest
from packaging.requirements import Requirement

CHAPTERS = install_note.chapters()


def test_every_toc_notebook_is_checked():
    assert len(CHAPTERS) >= 14
    assert {p.stem for p in CHAPTERS} >= {"intro", "ndcg", "scale", "performance"}


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_has_its_note(chapter):
    found = install_note.current(chapter)
    assert found is not None, (
        f"{chapter.name}: no install note in its second cell; run "
        "`python tests/install_note.py --write`"
    )
    assert found == install_note.expected(chapter), (
        f"{chapter.name}: the install note does not match the chapter's imports; run "
        "`python tests/install_note.py --write`"
    )


def test_extras_are_declared_and_satisfied_by_the_pinned_environment():
    """Each extra a note names exists in pyproject.toml and is satisfied here.

    The installed versions of the book's environment (requirements.txt) satisfy
    every requirement of every extra the notes name.
    """
    declared = install_note.project()["optional-dependencies"]
    used = {e for ch in CHAPTERS for e in install_note.extras_for(json.loads(ch.read_text()))}
    assert used <= set(declared), f"extras missing from pyproject.toml: {used - set(declared)}"
    for extra in sorted(used):
        for spec in declared[extra]:
            req = Requirement(spec)
            version = md.version(req.name)
            assert req.specifier.contains(version, prereleases=True), (extra, spec, version)


def test_the_repository_is_installed_under_the_name_the_note_gives():
    """The distribution the note names is this repository and provides `recmetrics`.

    `make env` installs this checkout with pip (requirements.txt ends with `-e .`).
    """
    name = install_note.project()["name"]
    # the installed distribution, not the recmetrics_book.egg-info of the checkout
    site = sysconfig.get_paths()["purelib"]
    (dist,) = [d for d in md.distributions(path=[site]) if d.metadata["Name"] == name]
    assert dist.version == install_note.project()["version"]
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    assert Path(direct["url"].removeprefix("file://")).resolve() == install_note.ROOT
    top = (dist.read_text("top_level.txt") or "").split()
    assert "recmetrics" in top or any(str(f).startswith("__editable__") for f in dist.files or [])
    import recmetrics

    assert Path(recmetrics.__file__).resolve().is_relative_to(install_note.ROOT)


def test_note_text():
    text = install_note.note(["data", "plot"], data=True)
    assert text.startswith(install_note.MARK)
    assert '"recmetrics-book[data,plot] @ git+https://github.com/' in text
    assert "data/benchmarks/" in text and "make lab" in text
    plain = install_note.note([], data=False)
    assert 'pip install "recmetrics-book @ git+' in plain and "extras" not in plain


def test_citation_data_agree():
    """The landing page's BibTeX, CITATION.cff and pyproject.toml name one version."""
    import re

    import yaml

    root = install_note.ROOT
    cff = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
    version = install_note.project()["version"]
    assert cff["version"] == version
    landing = (root / "book" / "index.md").read_text(encoding="utf-8")
    bib = re.search(r"```bibtex\n(.*?)```", landing, re.S).group(1)
    fields = dict(re.findall(r"^\s+(\w+)\s*=\s*\{(.*)\},?$", bib, re.M))
    assert fields["edition"] == f"Version {version}"
    assert fields["title"] == cff["preferred-citation"]["title"]
    assert fields["year"] == str(cff["preferred-citation"]["year"])
    assert fields["url"] == cff["preferred-citation"]["url"] == cff["repository-code"]
    assert fields["author"] == "{" + cff["preferred-citation"]["authors"][0]["name"] + "}"
    assert install_note.repository_url() == cff["repository-code"]
